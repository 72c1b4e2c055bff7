/* A soak of the engine's asynchronous C API, run by tests/soak.rs under ASAN
 * and UBSan: JOBS mixed jobs (C2, Winning and Window PoSt, SnapDeals on a
 * real 2 KiB sector; about a quarter garbage) from THREADS threads at random
 * priorities, each waited for, cancelled, released or polled at random, while
 * another thread reconfigures the engine. At the end every job is accounted
 * for, every valid proof verified with stock, no garbage proved anything, no
 * file descriptor is left open and the RSS has not run away (ASAN reports
 * leaks at exit).
 *
 * With a fourth argument, `garbage`, every job is garbage and nothing is
 * proved (no warm-up, no key loaded): the short form valgrind can finish,
 * which runs the C API's parsing, error, cancel, release and reconfiguration
 * paths on every thread.
 *
 * usage: soak FIXTURE JOBS THREADS [garbage] (the fixture: tests/soak.rs). */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* The fixture's fields, in order. */
enum { SECTOR_ID, PROVER_ID, TICKET, SEED, COMM_R, COMM_D, C1, RANDOMNESS, WINNING, WINDOW, COMM_R_OLD, COMM_R_NEW,
       COMM_D_NEW, SNAP_VANILLA };
enum { MAX_FIELDS = 64 };
static slice_ref_uint8_t field[MAX_FIELDS];
static size_t nfields;

enum kind { C2, WINNING_POST, WINDOW_POST, SNAP_DEALS };
static const char *kind_name[] = {"C2", "Winning PoSt", "Window PoSt", "SnapDeals"};
static const RegisteredPoStProof_t WINNING_2KIB = REGISTERED_PO_ST_PROOF_STACKED_DRG_WINNING2_KI_B_V1;
static const RegisteredPoStProof_t WINDOW_2KIB = REGISTERED_PO_ST_PROOF_STACKED_DRG_WINDOW2_KI_B_V1_1;

/* Valid C2s and SnapDeals are slow on a small machine: this many at most
 * (beyond that such a job is garbage). */
enum { MAX_VALID_C2 = 2, MAX_VALID_SNAP = 4 };

static atomic_int next_job, valid_c2, valid_snap;
static atomic_int proved, failed_as_expected, rejected_at_submit, cancelled, released, unexpected;
static atomic_int reconfigured, reconfigure_failed;
static atomic_bool all_submitted_done;
static int garbage_only;

static int read_fixture(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *bytes = malloc((size_t)n);
  if (fread(bytes, 1, (size_t)n, fp) != (size_t)n) return -1;
  fclose(fp);
  for (long at = 0; at + 4 <= n && nfields < MAX_FIELDS;) {
    uint32_t len = (uint32_t)bytes[at] | (uint32_t)bytes[at + 1] << 8 | (uint32_t)bytes[at + 2] << 16 |
                   (uint32_t)bytes[at + 3] << 24;
    at += 4;
    if (at + len > n) return -1;
    field[nfields++] = ref(bytes + at, len);
    at += len;
  }
  /* `bytes` lives as long as the program: the fields point into it. */
  return nfields > SNAP_VANILLA ? 0 : -1;
}

static uint8_32_array_t arr(int i) {
  uint8_32_array_t a;
  memcpy(a.idx, field[i].ptr, 32);
  return a;
}

static uint64_t sector_id(void) {
  uint64_t id = 0;
  for (int i = 7; i >= 0; i--) id = id << 8 | field[SECTOR_ID].ptr[i];
  return id;
}

static void unexpected_outcome(const char *what, enum kind k, int garbage, int rc) {
  char msg[512];
  cuzk_last_error((uint8_t *)msg, sizeof msg);
  fprintf(stderr, "UNEXPECTED: %s (%s%s, code %d): %s\n", what, garbage ? "garbage " : "", kind_name[k], rc, msg);
  atomic_fetch_add(&unexpected, 1);
}

/* The input of a job, garbage or not: a copy the caller frees. Garbage is the
 * valid input cut to half its length or overwritten with random bytes: it
 * cannot parse or cannot prove. */
static uint8_t *input(slice_ref_uint8_t valid, int garbage, unsigned *rng, size_t *len) {
  uint8_t *copy = malloc(valid.len ? valid.len : 1);
  memcpy(copy, valid.ptr, valid.len);
  *len = valid.len;
  if (garbage == 1) {
    *len = valid.len / 2;
  } else if (garbage == 2) {
    for (size_t i = 0; i < valid.len; i++) copy[i] = (uint8_t)rand_r(rng);
  }
  return copy;
}

static int submit(enum kind k, int garbage, cuzk_priority_t prio, unsigned *rng, uint64_t *job) {
  uint8_32_array_t prover = arr(PROVER_ID), randomness = arr(RANDOMNESS);
  size_t len = 0;
  int rc;
  if (k == C2) {
    uint8_t *c1 = input(field[C1], garbage, rng, &len);
    rc = cuzk_submit_porep_c2(ref(c1, len), sector_id(), &prover, prio, job);
    free(c1);
    return rc;
  }
  int which = k == WINNING_POST ? WINNING : k == WINDOW_POST ? WINDOW : SNAP_VANILLA;
  uint8_t *vanilla = input(field[which], garbage, rng, &len);
  slice_boxed_uint8_t one = {vanilla, len};
  slice_ref_slice_boxed_uint8_t list = {&one, 1};
  if (k == SNAP_DEALS) {
    uint8_32_array_t old_r = arr(COMM_R_OLD), new_r = arr(COMM_R_NEW), new_d = arr(COMM_D_NEW);
    rc = cuzk_submit_snap_deals(REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1, list, &old_r, &new_r, &new_d, prio, job);
  } else if (k == WINNING_POST) {
    rc = cuzk_submit_winning_post(WINNING_2KIB, &randomness, &prover, list, prio, job);
  } else {
    rc = cuzk_submit_window_post(WINDOW_2KIB, &randomness, &prover, list, prio, job);
  }
  free(vanilla);
  return rc;
}

/* Whether `proof` verifies with stock for job kind `k`. */
static int verifies(enum kind k, slice_boxed_uint8_t proof) {
  uint8_32_array_t comm_r = arr(COMM_R), prover = arr(PROVER_ID);
  Result_bool_t *v;
  if (k == C2) {
    uint8_32_array_t comm_d = arr(COMM_D), ticket = arr(TICKET), seed = arr(SEED);
    v = verify_seal(REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1, &comm_r, &comm_d, &prover, &ticket, &seed, sector_id(),
                    ref(proof.ptr, proof.len));
    int ok = v->status_code == 0 && v->value;
    destroy_verify_seal_response(v);
    return ok;
  }
  if (k == SNAP_DEALS) {
    uint8_32_array_t old_r = arr(COMM_R_OLD), new_r = arr(COMM_R_NEW), new_d = arr(COMM_D_NEW);
    v = verify_empty_sector_update_proof(REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1, ref(proof.ptr, proof.len), &old_r,
                                         &new_r, &new_d);
    int ok = v->status_code == 0 && v->value;
    destroy_empty_sector_update_verify_proof_response(v);
    return ok;
  }
  RegisteredPoStProof_t rp = k == WINNING_POST ? WINNING_2KIB : WINDOW_2KIB;
  uint8_32_array_t randomness = arr(RANDOMNESS);
  PublicReplicaInfo_t replica = {rp, comm_r, sector_id()};
  PoStProof_t post = {rp, proof};
  slice_ref_PublicReplicaInfo_t replicas = {&replica, 1};
  slice_ref_PoStProof_t proofs = {&post, 1};
  int ok;
  if (k == WINNING_POST) {
    v = verify_winning_post(&randomness, replicas, proofs, &prover);
    ok = v->status_code == 0 && v->value;
    destroy_verify_winning_post_response(v);
  } else {
    v = verify_window_post(&randomness, replicas, proofs, &prover);
    ok = v->status_code == 0 && v->value;
    destroy_verify_window_post_response(v);
  }
  return ok;
}

/* Accounts for the outcome `rc` of a finished wait on a job of kind `k`. */
static void finished(enum kind k, int garbage, int rc, slice_boxed_uint8_t proof) {
  if (rc == CUZK_OK) {
    if (garbage)
      unexpected_outcome("garbage proved", k, garbage, rc);
    else if (!verifies(k, proof))
      unexpected_outcome("a proof that does not verify", k, garbage, rc);
    else
      atomic_fetch_add(&proved, 1);
    cuzk_bytes_free(proof);
  } else if (rc == CUZK_PROOF_FAILED && garbage) {
    atomic_fetch_add(&failed_as_expected, 1);
  } else {
    unexpected_outcome("a wait's outcome", k, garbage, rc);
  }
}

static void sleep_ms(long ms);

static void run_job(unsigned *rng) {
  int pick = rand_r(rng) % 100;
  enum kind k = pick < 45 ? WINNING_POST : pick < 65 ? WINDOW_POST : pick < 85 ? SNAP_DEALS : C2;
  int garbage = garbage_only || rand_r(rng) % 4 == 0 ? 1 + rand_r(rng) % 2 : 0;
  if (k == C2 && !garbage && atomic_fetch_add(&valid_c2, 1) >= MAX_VALID_C2) garbage = 1;
  if (k == SNAP_DEALS && !garbage && atomic_fetch_add(&valid_snap, 1) >= MAX_VALID_SNAP) garbage = 1;
  cuzk_priority_t prio = (cuzk_priority_t)(rand_r(rng) % 4);
  uint64_t job = 0;
  int rc = submit(k, garbage, prio, rng, &job);
  if (rc == CUZK_INVALID_ARGUMENT && garbage) {
    atomic_fetch_add(&rejected_at_submit, 1);
    return;
  }
  if (rc != CUZK_OK) {
    unexpected_outcome("submit", k, garbage, rc);
    return;
  }
  slice_boxed_uint8_t proof = {NULL, 0};
  cuzk_job_state_t state;
  switch (rand_r(rng) % 10) {
    case 0: /* cancelled: at once, or after it finished (then its outcome stands) */
      if (cuzk_cancel(job) == CUZK_OK) {
        rc = cuzk_wait(job, UINT64_MAX, &proof);
        if (rc == CUZK_CANCELLED)
          atomic_fetch_add(&cancelled, 1);
        else
          unexpected_outcome("a wait after cancel", k, garbage, rc);
      } else {
        finished(k, garbage, cuzk_wait(job, UINT64_MAX, &proof), proof);
      }
      break;
    case 1: /* released: forgotten */
      if (cuzk_release(job) == CUZK_OK && cuzk_poll(job, &state) == CUZK_NOT_FOUND)
        atomic_fetch_add(&released, 1);
      else
        unexpected_outcome("release", k, garbage, rc);
      break;
    case 2: /* polled until it ends, then collected */
      while ((rc = cuzk_poll(job, &state)) == CUZK_OK && state == CUZK_JOB_RUNNING) sleep_ms(2);
      if (rc != CUZK_OK) {
        unexpected_outcome("poll", k, garbage, rc);
        break;
      }
      finished(k, garbage, cuzk_wait(job, 0, &proof), proof);
      break;
    case 3: /* short waits that time out first */
      while ((rc = cuzk_wait(job, 3, &proof)) == CUZK_TIMEOUT) {
      }
      finished(k, garbage, rc, proof);
      break;
    default:
      finished(k, garbage, cuzk_wait(job, UINT64_MAX, &proof), proof);
  }
}

static int jobs_total;

static void *worker(void *arg) {
  unsigned rng = (unsigned)(uintptr_t)arg * 7919u + 17u;
  while (atomic_fetch_add(&next_job, 1) < jobs_total) run_job(&rng);
  return NULL;
}

static void *reconfigurer(void *arg) {
  (void)arg;
  const char *settings[] = {"{\"synthesis_threads\": 1}", "{\"synthesis_threads\": 2, \"prover_workers\": 2}",
                            "{\"host_memory_budget\": \"8GiB\", \"prover_workers\": 1}"};
  for (int i = 0; !atomic_load(&all_submitted_done); i++) {
    if (cuzk_config_set(text(settings[i % 3])) == CUZK_OK)
      atomic_fetch_add(&reconfigured, 1);
    else
      atomic_fetch_add(&reconfigure_failed, 1);
    sleep_ms(20);
  }
  return NULL;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Whether the JSON report `b` lists no requests ("requests": [ ]). */
static int no_requests(slice_boxed_uint8_t b) {
  const char *key = "\"requests\"";
  size_t klen = strlen(key);
  for (size_t i = 0; i + klen <= b.len; i++) {
    if (memcmp(b.ptr + i, key, klen) != 0) continue;
    size_t j = i + klen;
    while (j < b.len && (b.ptr[j] == ':' || b.ptr[j] == ' ' || b.ptr[j] == '\n')) j++;
    if (j >= b.len || b.ptr[j++] != '[') return 0;
    while (j < b.len && (b.ptr[j] == ' ' || b.ptr[j] == '\n')) j++;
    return j < b.len && b.ptr[j] == ']';
  }
  return 0;
}

static int open_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

static long rss_kib(void) {
  FILE *fp = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (fp && fgets(line, sizeof line, fp))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  if (fp) fclose(fp);
  return kib;
}

/* Every kind's key loaded, one valid job of each but C2 run and verified. */
static void warm_up(void) {
  check(cuzk_preload_params(CUZK_PROOF_POREP_C2, REGISTERED_SEAL_PROOF_STACKED_DRG2_KI_B_V1_1) == CUZK_OK, "preload C2");
  check(cuzk_preload_params(CUZK_PROOF_WINNING_POST, WINNING_2KIB) == CUZK_OK, "preload Winning PoSt");
  check(cuzk_preload_params(CUZK_PROOF_WINDOW_POST, WINDOW_2KIB) == CUZK_OK, "preload Window PoSt");
  check(cuzk_preload_params(CUZK_PROOF_SNAP_DEALS, REGISTERED_UPDATE_PROOF_STACKED_DRG2_KI_B_V1) == CUZK_OK,
        "preload SnapDeals");
  unsigned rng = 1;
  for (enum kind k = WINNING_POST; k <= SNAP_DEALS; k++) {
    uint64_t job = 0;
    slice_boxed_uint8_t proof = {NULL, 0};
    int rc = submit(k, 0, CUZK_PRIORITY_DEFAULT, &rng, &job);
    check(rc == CUZK_OK, "warm-up submit");
    rc = cuzk_wait(job, UINT64_MAX, &proof);
    check(rc == CUZK_OK && verifies(k, proof), kind_name[k]);
    cuzk_bytes_free(proof);
  }
}

int main(int argc, char **argv) {
  garbage_only = argc == 5 && strcmp(argv[4], "garbage") == 0;
  if ((argc != 4 && !garbage_only) || read_fixture(argv[1]) != 0) {
    fprintf(stderr, "usage: %s FIXTURE JOBS THREADS [garbage] (a fixture of tests/soak.rs)\n", argv[0]);
    return 2;
  }
  jobs_total = atoi(argv[2]);
  int nthreads = atoi(argv[3]);
  if (jobs_total <= 0 || nthreads <= 0 || nthreads > 256) return 2;
  alarm(1800); /* a hang fails the test instead of holding it */

  if (!garbage_only) warm_up();
  int fds = open_fds();
  long rss = rss_kib();
  time_t start = time(NULL);

  pthread_t threads[256], config;
  pthread_create(&config, NULL, reconfigurer, NULL);
  for (int i = 0; i < nthreads; i++) pthread_create(&threads[i], NULL, worker, (void *)(uintptr_t)(i + 1));
  for (int i = 0; i < nthreads; i++) pthread_join(threads[i], NULL);
  atomic_store(&all_submitted_done, 1);
  pthread_join(config, NULL);

  int accounted = proved + failed_as_expected + rejected_at_submit + cancelled + released;
  long rss_end = rss_kib();
  printf("soak: %d jobs on %d threads in %ld s: %d proved and verified, %d garbage failed, %d rejected at submit, "
         "%d cancelled, %d released, %d unexpected; %d reconfigurations; fds %d -> %d; RSS %ld -> %ld MiB\n",
         jobs_total, nthreads, (long)(time(NULL) - start), proved, failed_as_expected, rejected_at_submit, cancelled,
         released, unexpected, reconfigured, fds, open_fds(), rss / 1024, rss_end / 1024);
  check(unexpected == 0, "no unexpected outcome");
  check(accounted == jobs_total, "every job accounted for");
  if (garbage_only)
    check(proved == 0 && failed_as_expected + rejected_at_submit > 0, "garbage ran to the end, none proved");
  else
    check(proved > 0 && failed_as_expected > 0, "both valid and garbage jobs ran to the end");
  check(reconfigure_failed == 0 && reconfigured > 0, "reconfigured while running");
  check(open_fds() == fds, "no file descriptor left open");
  check(rss_end < rss + 1024 * 1024, "RSS within 1 GiB of the warm-up's");

  slice_boxed_uint8_t status = {NULL, 0};
  check(cuzk_status_json(&status) == CUZK_OK && no_requests(status), "no request left in the status report");
  cuzk_bytes_free(status);
  return summary();
}
