/* Drives the engine's asynchronous C API (cuzk_*) from C under ASAN/UBSan:
 * configuration, bad arguments and their fixed codes, the last-error message,
 * submit / poll / wait with a timeout / wait, cancel, release, parameter
 * preload and eviction, the status report, and NULL-safe frees. tests/c_abi.rs
 * passes the fixture of c2_flow.c: sector_id (u64 LE), prover_id, ticket,
 * seed, comm_r, comm_d (32 bytes each), then the C1 output JSON. */
#include "harness.h"

/* A check of a cuzk_* call: on failure, also the call's last-error message. */
static void check_cuzk(int ok, const char *what) {
  check(ok, what);
  if (!ok) {
    char msg[512];
    cuzk_last_error((uint8_t *)msg, sizeof msg);
    fprintf(stderr, "  last error: %s\n", msg);
  }
}


/* Whether the last error on this thread mentions `part`. */
static int last_error_has(const char *part) {
  char msg[1024];
  size_t n = cuzk_last_error((uint8_t *)msg, sizeof msg);
  return n > 0 && strstr(msg, part) != NULL;
}

/* The bytes of a cuzk output as a NUL-terminated string (caller frees). */
static char *as_string(slice_boxed_uint8_t b) {
  char *s = malloc(b.len + 1);
  memcpy(s, b.ptr, b.len);
  s[b.len] = 0;
  return s;
}

int main(int argc, char **argv) {
  c2_fixture_t fx;
  if (read_c2_fixture(argc, argv, &fx) != 0) return 2;
  uint64_t sector_id = fx.sector_id;
  uint8_32_array_t *f = fx.f;
  slice_ref_uint8_t c1 = fx.c1;
  RegisteredSealProof_t rp = REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1;
  slice_boxed_uint8_t out = {NULL, 0};
  uint64_t job = 0;
  cuzk_job_state_t state = -1;

  /* Configuration. */
  check_cuzk(cuzk_config_set(text("{\"synthesis_threads\": 2, \"host_memory_budget\": \"16GiB\"}")) == CUZK_OK,
        "config_set with known fields");
  check_cuzk(cuzk_config_json(&out) == CUZK_OK, "config_json");
  char *config = as_string(out);
  check_cuzk(strstr(config, "\"synthesis_threads\": 2") && strstr(config, "17179869184"), "the new values are in force");
  free(config);
  cuzk_bytes_free(out);
  check_cuzk(cuzk_config_set(text("{not json")) == CUZK_INVALID_ARGUMENT && last_error_has("not JSON"), "bad JSON");
  check_cuzk(cuzk_config_set(text("{\"no_such_field\": 1}")) == CUZK_INVALID_ARGUMENT && last_error_has("no_such_field"),
        "unknown field");
  check_cuzk(cuzk_config_set(text("{\"prover_workers\": 0}")) == CUZK_INVALID_ARGUMENT, "invalid value");
  check_cuzk(cuzk_config_set(ref(NULL, 4)) == CUZK_INVALID_ARGUMENT, "NULL with a length");
  check_cuzk(cuzk_config_json(NULL) == CUZK_INVALID_ARGUMENT, "NULL output pointer");

  /* The last error: full length returned, copy truncated and NUL-terminated. */
  char small[8];
  memset(small, 'x', sizeof small);
  size_t full = cuzk_last_error((uint8_t *)small, sizeof small);
  check_cuzk(full > sizeof small && small[7] == 0 && strlen(small) == 7, "last error truncated with a NUL");
  check_cuzk(cuzk_last_error(NULL, 0) == full, "length query with NULL");

  /* Unknown jobs and bad arguments. */
  check_cuzk(cuzk_wait(987654321, 0, &out) == CUZK_NOT_FOUND, "wait on an unknown job");
  check_cuzk(cuzk_poll(987654321, &state) == CUZK_NOT_FOUND, "poll an unknown job");
  check_cuzk(cuzk_cancel(987654321) == CUZK_NOT_FOUND, "cancel an unknown job");
  check_cuzk(cuzk_release(987654321) == CUZK_NOT_FOUND, "release an unknown job");
  check_cuzk(cuzk_submit_porep_c2(c1, sector_id, &f[0], CUZK_PRIORITY_DEFAULT, NULL) == CUZK_INVALID_ARGUMENT,
        "NULL job id");
  check_cuzk(cuzk_submit_porep_c2(c1, sector_id, NULL, CUZK_PRIORITY_DEFAULT, &job) == CUZK_INVALID_ARGUMENT &&
            last_error_has("prover_id is NULL"),
        "NULL prover id");
  check_cuzk(cuzk_submit_porep_c2(c1, sector_id, &f[0], 9, &job) == CUZK_INVALID_ARGUMENT && last_error_has("priority"),
        "invalid priority");
  check_cuzk(cuzk_submit_winning_post(99, &f[1], &f[0], (slice_ref_slice_boxed_uint8_t){NULL, 0}, 0, &job) ==
            CUZK_INVALID_ARGUMENT,
        "invalid PoSt proof type");
  check_cuzk(cuzk_preload_params(7, rp) == CUZK_INVALID_ARGUMENT, "invalid proof kind");
  check_cuzk(cuzk_preload_params(CUZK_PROOF_WINNING_POST, REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1) ==
            CUZK_INVALID_ARGUMENT,
        "a Window type for Winning");

  /* A C1 output that is not one: the submit succeeds, the wait says why. */
  check_cuzk(cuzk_submit_porep_c2(text("{garbage"), sector_id, &f[0], CUZK_PRIORITY_DEFAULT, &job) == CUZK_OK,
        "submit garbage");
  check_cuzk(cuzk_wait(job, UINT64_MAX, &out) == CUZK_PROOF_FAILED && last_error_has("not a valid C1 output"),
        "garbage fails at wait with the reason");
  check_cuzk(cuzk_wait(job, 0, &out) == CUZK_NOT_FOUND, "a finished job is forgotten");

  /* Parameters: preload, report, evict. */
  check_cuzk(cuzk_preload_params(CUZK_PROOF_POREP_C2, rp) == CUZK_OK, "preload the 2 KiB PoRep parameters");

  /* The real proof, asynchronously. */
  uint64_t c2 = 0;
  check_cuzk(cuzk_submit_porep_c2(c1, sector_id, &f[0], CUZK_PRIORITY_DEFAULT, &c2) == CUZK_OK && c2 != 0, "submit C2");
  check_cuzk(cuzk_poll(c2, &state) == CUZK_OK && state == CUZK_JOB_RUNNING, "running");
  check_cuzk(cuzk_poll(c2, NULL) == CUZK_INVALID_ARGUMENT, "poll with NULL");
  out.ptr = NULL;
  out.len = 0;
  check_cuzk(cuzk_wait(c2, 10, &out) == CUZK_TIMEOUT && out.ptr == NULL, "a short wait times out, writing nothing");
  check_cuzk(cuzk_status_json(&out) == CUZK_OK, "status");
  char *status = as_string(out);
  cuzk_bytes_free(out);
  check_cuzk(strstr(status, "\"requests\"") && strstr(status, "\"PorepC2\"") && strstr(status, "\"resident_parameters\"") &&
            strstr(status, "\"circuit_id\"") && strstr(status, "\"counters\"") && strstr(status, "\"gpus\""),
        "the status report names the job, the resident key, counters and devices");
  free(status);

  /* A second C2 cancelled while queued behind the first. */
  uint64_t doomed = 0;
  check_cuzk(cuzk_submit_porep_c2(c1, sector_id, &f[0], CUZK_PRIORITY_LOW, &doomed) == CUZK_OK, "submit a second C2");
  check_cuzk(cuzk_cancel(doomed) == CUZK_OK, "cancel it");
  check_cuzk(cuzk_poll(doomed, &state) == CUZK_OK && state == CUZK_JOB_CANCELLED, "polls as cancelled");
  check_cuzk(cuzk_wait(doomed, UINT64_MAX, &out) == CUZK_CANCELLED, "its wait says cancelled");
  uint64_t dropped = 0;
  check_cuzk(cuzk_submit_porep_c2(text("{}"), sector_id, &f[0], 0, &dropped) == CUZK_OK, "submit a third");
  check_cuzk(cuzk_release(dropped) == CUZK_OK && cuzk_poll(dropped, &state) == CUZK_NOT_FOUND, "release forgets it");

  check_cuzk(cuzk_wait(c2, UINT64_MAX, &out) == CUZK_OK && out.len == 192, "C2 proof of 192 bytes");
  Result_bool_t *v = verify_seal(rp, &f[3], &f[4], &f[0], &f[1], &f[2], sector_id, ref(out.ptr, out.len));
  check_cuzk(v->status_code == 0 && v->value, "the proof verifies with stock verify_seal");
  destroy_verify_seal_response(v);
  cuzk_bytes_free(out);

  check_cuzk(cuzk_evict_params(CUZK_PROOF_POREP_C2, rp) == CUZK_OK, "evict the parameters");
  check_cuzk(cuzk_evict_params(CUZK_PROOF_POREP_C2, rp) == CUZK_NOT_FOUND, "evicting again: not resident");

  slice_boxed_uint8_t none = {NULL, 0};
  cuzk_bytes_free(none);
  return summary();
}
