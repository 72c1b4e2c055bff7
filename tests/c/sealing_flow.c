/* Drives the delegated sealing surface through include/cuzk.h as a C caller of
 * filcrypto.h: logging to a descriptor, pieces written through file descriptors, commitments, PC1, PC2,
 * C1, unsealing, the cache, the info accessors, and bad input; every response
 * freed with its destructor. Built with -fsanitize=address,undefined by
 * tests/sealing.rs, which passes a folder holding piece0 and piece1 (1016 bytes
 * each), an empty cache/ and an empty sealed file. */
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"

/* Whether the error message of a response contains `expect`. */
static int says(slice_boxed_uint8_t msg, const char *expect) {
  char buf[512] = {0};
  size_t n = msg.len < sizeof buf - 1 ? msg.len : sizeof buf - 1;
  memcpy(buf, msg.ptr, n);
  if (!strstr(buf, expect)) fprintf(stderr, "message: %s\n", buf);
  return strstr(buf, expect) != NULL;
}

static int string_is(Result_slice_boxed_uint8_t *r, const char *expect) {
  int ok = r->status_code == 0 && r->value.len == strlen(expect) && memcmp(r->value.ptr, expect, r->value.len) == 0;
  destroy_string_response(r);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  char path[4096], cache[4096], sealed[4096], staged[4096], unsealed[4096];
  snprintf(cache, sizeof cache, "%s/cache", argv[1]);
  snprintf(sealed, sizeof sealed, "%s/sealed", argv[1]);
  snprintf(staged, sizeof staged, "%s/staged", argv[1]);
  snprintf(unsealed, sizeof unsealed, "%s/unsealed", argv[1]);
  const RegisteredSealProof_t rp = REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1;

  /* The info accessors leave logging alone, as stock's. */
  check(string_is(get_seal_version(rp), "StackedDrg2KiBV1_1"), "get_seal_version before init_log_fd");
  check(get_max_user_bytes_per_staged_sector(rp) == 2032, "get_max_user_bytes_per_staged_sector before init_log_fd");

  /* The first other call: the library's log goes to this descriptor, which it keeps. */
  char log_path[4096];
  snprintf(log_path, sizeof log_path, "%s/log", argv[1]);
  Result_void_t *l = init_log_fd(open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
  check(l->status_code == 0, "init_log_fd as the first call");
  destroy_init_log_fd_response(l);
  int again = open(log_path, O_RDONLY);
  l = init_log_fd(again);
  check(l->status_code == 1 && says(l->error_msg, "There is already an active logger"), "init_log_fd twice");
  destroy_init_log_fd_response(l);
  check(fcntl(again, F_GETFD) != -1, "a refused log descriptor stays the caller's");
  close(again);

  /* Two pieces into the staged sector, through descriptors. */
  int dst = open(staged, O_RDWR | O_CREAT | O_TRUNC, 0644);
  PublicPieceInfo_t pieces[2];
  uint64_t existing[1] = {1016};
  uint8_t data[2032];
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/piece%d", argv[1], i);
    int src = open(path, O_RDONLY);
    check(read(src, data + 1016 * i, 1016) == 1016, "read piece");
    lseek(src, 0, SEEK_SET);
    slice_ref_uint64_t ex = {existing, (size_t)i};
    Result_WriteWithAlignment_t *w = write_with_alignment(rp, src, 1016, dst, ex);
    check(w->status_code == 0 && w->value.left_alignment_unpadded == 0 && w->value.total_write_unpadded == 1016,
          "write_with_alignment");
    lseek(src, 0, SEEK_SET);
    Result_GeneratePieceCommitment_t *c = generate_piece_commitment(rp, src, 1016);
    check(c->status_code == 0 && c->value.num_bytes_aligned == 1016, "generate_piece_commitment");
    check(memcmp(c->value.comm_p.idx, w->value.comm_p.idx, 32) == 0, "comm_p agrees");
    pieces[i].num_bytes = 1016;
    pieces[i].comm_p = w->value.comm_p;
    destroy_generate_piece_commitment_response(c);
    destroy_write_with_alignment_response(w);
    check(fcntl(src, F_GETFD) != -1, "the piece descriptor stays open");
    close(src);
  }
  check(lseek(dst, 0, SEEK_END) == 2048, "staged sector is full");
  close(dst);
  slice_ref_PublicPieceInfo_t piece_list = {pieces, 2};
  Result_uint8_32_array_t *d = generate_data_commitment(rp, piece_list);
  check(d->status_code == 0, "generate_data_commitment");
  uint8_32_array_t comm_d = d->value;
  destroy_generate_data_commitment_response(d);

  /* PC1, PC2, C1. */
  uint8_32_array_t prover_id = {{7}}, ticket = {{9}}, seed = {{11}};
  Result_slice_boxed_uint8_t *p1 =
      seal_pre_commit_phase1(rp, text(cache), text(staged), text(sealed), 4, &prover_id, &ticket, piece_list);
  check(p1->status_code == 0 && p1->value.len > 0 && p1->value.ptr[0] == '{', "seal_pre_commit_phase1");
  slice_ref_uint8_t pc1 = {p1->value.ptr, p1->value.len};
  Result_SealPreCommitPhase2_t *p2 = seal_pre_commit_phase2(pc1, text(cache), text(sealed));
  destroy_seal_pre_commit_phase1_response(p1);
  check(p2->status_code == 0 && p2->value.registered_proof == rp, "seal_pre_commit_phase2");
  check(memcmp(p2->value.comm_d.idx, comm_d.idx, 32) == 0, "comm_d of PC2 = generate_data_commitment");
  uint8_32_array_t comm_r = p2->value.comm_r;
  destroy_seal_pre_commit_phase2_response(p2);
  Result_slice_boxed_uint8_t *c1 =
      seal_commit_phase1(rp, &comm_r, &comm_d, text(cache), text(sealed), 4, &prover_id, &ticket, &seed, piece_list);
  check(c1->status_code == 0 && c1->value.len > 1000, "seal_commit_phase1");
  destroy_seal_commit_phase1_response(c1);

  /* Unseal the second piece into a descriptor. */
  int in = open(sealed, O_RDONLY), out = open(unsealed, O_RDWR | O_CREAT | O_TRUNC, 0644);
  Result_void_t *u = unseal_range(rp, text(cache), in, out, 4, &prover_id, &ticket, &comm_d, 1016, 1016);
  check(u->status_code == 0, "unseal_range");
  destroy_unseal_range_response(u);
  uint8_t back[1016];
  lseek(out, 0, SEEK_SET);
  check(read(out, back, sizeof back) == 1016 && memcmp(back, data + 1016, 1016) == 0, "unsealed bytes");
  close(in);
  close(out);

  Result_void_t *cc = clear_cache(text(cache));
  check(cc->status_code == 0, "clear_cache");
  destroy_clear_cache_response(cc);

  /* Info. */
  check(string_is(get_seal_version(rp), "StackedDrg2KiBV1_1"), "get_seal_version");
  check(string_is(get_post_version(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1), "StackedDrgWindow2KiBV1_2"),
        "get_post_version maps V1_1 to V1_2");
  Result_slice_boxed_uint8_t *s = get_seal_params_path(rp);
  check(s->status_code == 0 && s->value.len > 7 && memcmp(s->value.ptr + s->value.len - 7, ".params", 7) == 0,
        "get_seal_params_path");
  destroy_string_response(s);
  s = get_post_circuit_identifier(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING2_KI_B_V1);
  check(s->status_code == 0 && s->value.len > 0, "get_post_circuit_identifier");
  destroy_string_response(s);
  check(get_max_user_bytes_per_staged_sector(rp) == 2032, "get_max_user_bytes_per_staged_sector");
  check(get_max_user_bytes_per_staged_sector(99) == 0, "get_max_user_bytes_per_staged_sector(invalid)");
  Result_size_t *n = get_num_partition_for_fallback_post(REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW32_GI_B_V1_1, 2350);
  check(n->status_code == 0 && n->value == 2, "get_num_partition_for_fallback_post");
  destroy_get_num_partition_for_fallback_post_response(n);

  /* Bad input. */
  slice_ref_uint64_t none = {NULL, 0};
  Result_WriteWithAlignment_t *w = write_with_alignment(rp, -1, 1016, 1, none);
  check(w->status_code == 1 && says(w->error_msg, "src_fd"), "bad descriptor");
  destroy_write_with_alignment_response(w);
  w = write_with_alignment(42, 0, 1016, 1, none);
  check(w->status_code == 1 && says(w->error_msg, "invalid RegisteredSealProof"), "bad enum");
  destroy_write_with_alignment_response(w);
  slice_ref_uint8_t garbage = {(const uint8_t *)"\xff\x00", 2};
  p2 = seal_pre_commit_phase2(garbage, text(cache), text(sealed));
  check(p2->status_code == 1 && says(p2->error_msg, "not a valid PC1 output"), "bad PC1 output");
  destroy_seal_pre_commit_phase2_response(p2);
  slice_ref_PublicPieceInfo_t bad_pieces = {NULL, 2};
  d = generate_data_commitment(rp, bad_pieces);
  check(d->status_code == 1 && says(d->error_msg, "NULL pointer"), "NULL pieces");
  destroy_generate_data_commitment_response(d);
  l = init_log_fd(-1);
  check(l->status_code == 1 && says(l->error_msg, "not a file descriptor"), "init_log_fd(-1)");
  destroy_init_log_fd_response(l);
  s = get_post_params_cid(-1);
  check(s->status_code == 1 && says(s->error_msg, "invalid RegisteredPoStProof"), "bad PoSt enum");
  destroy_string_response(s);

  /* RUST_LOG=debug: the calls logged their start and end into the descriptor. */
  static char log_text[1 << 22];
  int lf = open(log_path, O_RDONLY);
  ssize_t got = read(lf, log_text, sizeof log_text - 1);
  close(lf);
  log_text[got > 0 ? got : 0] = 0;
  check(strstr(log_text, "seal_pre_commit_phase1: start") != NULL && strstr(log_text, "clear_cache: end") != NULL,
        "the log went to init_log_fd's descriptor");

  return summary();
}
