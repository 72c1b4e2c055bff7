/* Drives PoRep C2 through include/cuzk.h exactly as a C caller of filcrypto.h:
 * prove, verify, and the bad-input cases. Built with -fsanitize=address,undefined
 * by tests/c_abi.rs, which passes a fixture: sector_id (u64 LE), prover_id,
 * ticket, seed, comm_r, comm_d (32 bytes each), then the C1 output JSON. */
#include "harness.h"

/* Status of C2 on `input`; prints the message of an error. */
static int c2_status(slice_ref_uint8_t input, uint64_t sector_id, const uint8_32_array_t *prover_id,
                     const char *expect) {
  Result_slice_boxed_uint8_t *r = seal_commit_phase2(input, sector_id, prover_id);
  int status = r->status_code;
  if (status != 0) {
    char msg[256] = {0};
    size_t n = r->error_msg.len < sizeof msg - 1 ? r->error_msg.len : sizeof msg - 1;
    memcpy(msg, r->error_msg.ptr, n);
    check(r->value.len == 0, "no value with an error");
    check(expect != NULL && strstr(msg, expect) != NULL, expect ? expect : "unexpected error");
  }
  destroy_seal_commit_phase2_response(r);
  return status;
}

static int verify_proof(RegisteredSealProof_t rp, const uint8_32_array_t *f, uint64_t sector_id,
                  slice_ref_uint8_t proof, int *value) {
  Result_bool_t *r = verify_seal(rp, &f[3], &f[4], &f[0], &f[1], &f[2], sector_id, proof);
  int status = r->status_code;
  *value = r->value;
  destroy_verify_seal_response(r);
  return status;
}

int main(int argc, char **argv) {
  c2_fixture_t fx;
  if (read_c2_fixture(argc, argv, &fx) != 0) return 2;
  uint64_t sector_id = fx.sector_id;
  uint8_32_array_t *f = fx.f;
  RegisteredSealProof_t rp = REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1;

  /* The real flow. */
  Result_slice_boxed_uint8_t *r = seal_commit_phase2(fx.c1, sector_id, &f[0]);
  check(r->status_code == F_C_P_RESPONSE_STATUS_NO_ERROR, "seal_commit_phase2 succeeds");
  check(r->value.len == 192, "one 192-byte partition proof");
  uint8_t proof[192] = {0};
  if (r->value.len == 192) memcpy(proof, r->value.ptr, 192);
  destroy_seal_commit_phase2_response(r);

  int valid = 0;
  check(verify_proof(rp, f, sector_id, ref(proof, 192), &valid) == 0 && valid, "verify_seal accepts the proof");
  check(verify_proof(rp, f, sector_id + 1, ref(proof, 192), &valid) != 0 || !valid, "wrong sector id rejected");
  proof[100] ^= 1;
  check(verify_proof(rp, f, sector_id, ref(proof, 192), &valid) != 0 || !valid, "tampered proof rejected");
  check(verify_proof(rp, f, sector_id, ref(proof, 17), &valid) != 0 || !valid, "short proof rejected");
  check(verify_proof(rp, f, sector_id, ref(NULL, 0), &valid) != 0, "empty proof is an error");
  check(verify_proof(99, f, sector_id, ref(proof, 192), &valid) != 0, "invalid enum value is an error");
  check(verify_proof(-3, f, sector_id, ref(proof, 192), &valid) != 0, "negative enum value is an error");
  Result_bool_t *vr = verify_seal(rp, NULL, &f[4], &f[0], &f[1], &f[2], sector_id, ref(proof, 192));
  check(vr->status_code != 0, "NULL comm_r is an error");
  destroy_verify_seal_response(vr);

  /* Bad C1 outputs. */
  check(c2_status(ref(fx.c1.ptr, 0), sector_id, &f[0], "empty") != 0, "empty C1");
  check(c2_status(ref(fx.c1.ptr, fx.c1.len / 3), sector_id, &f[0], "not a valid C1 output") != 0, "truncated C1");
  const char *garbage = "{not json";
  check(c2_status(ref((const uint8_t *)garbage, strlen(garbage)), sector_id, &f[0], "not a valid C1 output") != 0,
        "non-JSON C1");
  check(c2_status(fx.c1, sector_id, NULL, "prover_id is NULL") != 0, "NULL prover_id");
  check(c2_status(ref(NULL, 12), sector_id, &f[0], "NULL pointer") != 0, "NULL input with a length");

  /* Circuit proofs and NULL-safe frees. */
  Result_slice_boxed_uint8_t *cp = seal_commit_phase2_circuit_proofs(fx.c1, sector_id);
  check(cp->status_code == 0 && cp->value.len == 192, "circuit proofs");
  destroy_seal_commit_phase2_response(cp);
  destroy_seal_commit_phase2_response(NULL);
  destroy_verify_seal_response(NULL);

  slice_boxed_uint8_t b = alloc_boxed_slice(64);
  int zeroed = b.ptr != NULL && b.len == 64;
  for (size_t i = 0; zeroed && i < b.len; i++) zeroed = b.ptr[i] == 0;
  check(zeroed, "alloc_boxed_slice gives zeroed memory");
  destroy_boxed_slice(b);

  return summary();
}
