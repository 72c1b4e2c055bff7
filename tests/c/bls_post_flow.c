/* Drives the BLS exports and the PoSt challenge / vanilla-proof exports through
 * include/cuzk.h as a C caller of filcrypto.h, under AddressSanitizer (leaks
 * included) and UBSan, from tests/c_abi.rs. No fixture: bad replica paths are
 * used for generate_single_vanilla_proof, whose by-value path buffers Rust must
 * free (a leak would fail the run). */
#include "harness.h"

static slice_boxed_uint8_t boxed(const char *s) {
  slice_boxed_uint8_t b = alloc_boxed_slice(strlen(s));
  memcpy(b.ptr, s, b.len);
  return b;
}

int main(void) {
  /* Keys, signatures, aggregation, verification. */
  uint8_32_array_t seed1, seed2;
  memset(seed1.idx, 1, 32);
  memset(seed2.idx, 2, 32);
  uint8_32_array_t *k1 = private_key_generate_with_seed(&seed1);
  uint8_32_array_t *k2 = private_key_generate_with_seed(&seed2);
  uint8_32_array_t *k3 = private_key_generate();
  check(k1 && k2 && k3, "keys generated");
  uint8_48_array_t *p1 = private_key_public_key(ref(k1->idx, 32));
  uint8_48_array_t *p2 = private_key_public_key(ref(k2->idx, 32));
  const uint8_t m1[] = "first", m2[] = "second message";
  uint8_96_array_t *s1 = private_key_sign(ref(k1->idx, 32), ref(m1, sizeof m1 - 1));
  uint8_96_array_t *s2 = private_key_sign(ref(k2->idx, 32), ref(m2, sizeof m2 - 1));
  check(p1 && p2 && s1 && s2, "public keys and signatures");
  uint8_t sigs[192], keys[96], msgs[sizeof m1 - 1 + sizeof m2 - 1], digests[192];
  memcpy(sigs, s1->idx, 96);
  memcpy(sigs + 96, s2->idx, 96);
  memcpy(keys, p1->idx, 48);
  memcpy(keys + 48, p2->idx, 48);
  memcpy(msgs, m1, sizeof m1 - 1);
  memcpy(msgs + sizeof m1 - 1, m2, sizeof m2 - 1);
  uint8_96_array_t *agg = aggregate(ref(sigs, sizeof sigs));
  uint8_96_array_t *d1 = hash(ref(m1, sizeof m1 - 1));
  uint8_96_array_t *d2 = hash(ref(m2, sizeof m2 - 1));
  check(agg && d1 && d2, "aggregate and digests");
  memcpy(digests, d1->idx, 96);
  memcpy(digests + 96, d2->idx, 96);
  size_t sizes[2] = {sizeof m1 - 1, sizeof m2 - 1};
  slice_ref_size_t size_ref = {sizes, 2};
  check(verify(ref(agg->idx, 96), ref(digests, 192), ref(keys, 96)), "verify aggregate");
  check(hash_verify(ref(agg->idx, 96), ref(msgs, sizeof msgs), size_ref, ref(keys, 96)), "hash_verify aggregate");
  check(!verify(ref(s1->idx, 96), ref(digests, 192), ref(keys, 96)), "one signature is not the aggregate");
  size_t too_long[2] = {1000, 1};
  slice_ref_size_t bad_sizes = {too_long, 2};
  check(!hash_verify(ref(agg->idx, 96), ref(msgs, sizeof msgs), bad_sizes, ref(keys, 96)), "overrunning sizes");
  check(aggregate(ref(sigs, 95)) == NULL, "truncated signatures");
  check(aggregate(ref(NULL, 0)) == NULL, "no signatures");
  check(private_key_sign(ref(keys, 7), ref(m1, 1)) == NULL, "bad private key");
  check(private_key_generate_with_seed(NULL) == NULL, "NULL seed");
  uint8_96_array_t *zero = create_zero_signature();
  check(zero && zero->idx[0] == 0xc0, "zero signature is infinity");
  destroy_box_bls_signature(zero);
  destroy_box_bls_signature(agg);
  destroy_box_bls_signature(s1);
  destroy_box_bls_signature(s2);
  destroy_box_bls_digest(d1);
  destroy_box_bls_digest(d2);
  destroy_box_bls_public_key(p1);
  destroy_box_bls_public_key(p2);
  destroy_box_bls_private_key(k1);
  destroy_box_bls_private_key(k2);
  destroy_box_bls_private_key(k3);
  destroy_box_bls_signature(NULL);

  /* Challenges. */
  uint8_32_array_t randomness, prover_id;
  memset(randomness.idx, 9, 32);
  memset(prover_id.idx, 3, 32);
  randomness.idx[31] = prover_id.idx[31] = 0;
  uint64_t ids[3] = {7, 3, 5};
  slice_ref_uint64_t id_ref = {ids, 3};
  Result_GenerateFallbackSectorChallenges_t *ch =
      generate_fallback_sector_challenges(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1, &randomness, id_ref, &prover_id);
  check(ch->status_code == 0 && ch->value.ids.len == 3 && ch->value.challenges.len == 3, "fallback challenges");
  check(ch->status_code == 0 && ch->value.ids.ptr[0] == 3 && ch->value.ids.ptr[2] == 7, "sectors in ascending order");
  check(ch->status_code == 0 && ch->value.challenges.ptr[0].len > 0, "challenges per sector");
  destroy_generate_fallback_sector_challenges_response(ch);
  ch = generate_fallback_sector_challenges(99, &randomness, id_ref, &prover_id);
  check(ch->status_code != 0 && ch->value.ids.len == 0, "invalid enum");
  destroy_generate_fallback_sector_challenges_response(ch);
  Result_slice_boxed_uint64_t *win =
      generate_winning_post_sector_challenge(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING2_KI_B_V1, &randomness, 10, &prover_id);
  check(win->status_code == 0 && win->value.len == 1 && win->value.ptr[0] < 10, "winning sector challenge");
  destroy_generate_winning_post_sector_challenge(win);
  win = generate_winning_post_sector_challenge(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING2_KI_B_V1, NULL, 10, &prover_id);
  check(win->status_code != 0, "NULL randomness");
  destroy_generate_winning_post_sector_challenge(win);

  /* A vanilla proof of a replica that is not there: an error, and the path
   * buffers handed over by value are freed by cuzk (ASan checks for leaks). */
  PrivateReplicaInfo_t replica = {REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1, boxed("/nonexistent/cache"),
                                  randomness, boxed("/nonexistent/sealed"), 3};
  uint64_t challenges[2] = {1, 2};
  slice_ref_uint64_t challenge_ref = {challenges, 2};
  Result_slice_boxed_uint8_t *v = generate_single_vanilla_proof(replica, challenge_ref);
  check(v->status_code != 0 && v->error_msg.len > 0 && v->value.len == 0, "missing replica is an error");
  destroy_generate_single_vanilla_proof_response(v);
  PrivateReplicaInfo_t bad = {77, boxed("/x"), randomness, boxed("/y"), 3};
  v = generate_single_vanilla_proof(bad, challenge_ref);
  check(v->status_code != 0, "invalid enum in the replica");
  destroy_generate_single_vanilla_proof_response(v);

  /* Window PoSt from a missing replica: an error without faulty sectors. */
  PrivateReplicaInfo_t held = {REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1, boxed("/nonexistent/cache"),
                               randomness, boxed("/nonexistent/sealed"), 3};
  slice_ref_PrivateReplicaInfo_t replicas = {&held, 1};
  Result_GenerateWindowPoSt_t *w = generate_window_post(&randomness, replicas, &prover_id);
  check(w->status_code != 0 && w->value.proofs.len == 0 && w->value.faulty_sectors.len == 0, "missing replica");
  destroy_generate_window_post_response(w);
  destroy_boxed_slice(held.cache_dir_path);
  destroy_boxed_slice(held.replica_path);

  return summary();
}
