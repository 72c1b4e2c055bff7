/* What the C test programs share: counting checks, borrowing bytes as slices,
 * reading the C2 fixture that tests/c_abi.rs writes, and the summary line. */
#ifndef CUZK_TEST_HARNESS_H
#define CUZK_TEST_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"

static int passed, failed;

static inline void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "FAILED: %s\n", what);
  }
}

static inline slice_ref_uint8_t ref(const void *p, size_t n) {
  slice_ref_uint8_t s = {(const uint8_t *)p, n};
  return s;
}

static inline slice_ref_uint8_t text(const char *s) { return ref(s, strlen(s)); }

/* The exit status: 0 when every check passed. */
static inline int summary(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

/* A sealed 2 KiB sector as tests/c_abi.rs writes it: sector_id (u64 LE),
 * prover_id, ticket, seed, comm_r, comm_d (32 bytes each), then the C1 output
 * JSON. */
typedef struct {
  uint64_t sector_id;
  uint8_32_array_t f[5]; /* prover_id, ticket, seed, comm_r, comm_d */
  slice_ref_uint8_t c1;  /* into a static buffer: one fixture per program */
} c2_fixture_t;

/* Reads the fixture named by the program's one argument; 0 on success, else
 * says why on stderr. */
static inline int read_c2_fixture(int argc, char **argv, c2_fixture_t *fx) {
  static uint8_t buf[1 << 24];
  if (argc != 2) {
    fprintf(stderr, "usage: %s FIXTURE\n", argv[0]);
    return -1;
  }
  FILE *fp = fopen(argv[1], "rb");
  if (!fp) {
    perror("fixture");
    return -1;
  }
  size_t n = fread(buf, 1, sizeof buf, fp);
  fclose(fp);
  if (n < 8 + 5 * 32) {
    fprintf(stderr, "fixture too short\n");
    return -1;
  }
  fx->sector_id = 0;
  for (int i = 7; i >= 0; i--) fx->sector_id = (fx->sector_id << 8) | buf[i];
  for (int i = 0; i < 5; i++) memcpy(fx->f[i].idx, buf + 8 + 32 * i, 32);
  fx->c1 = ref(buf + 8 + 5 * 32, n - 8 - 5 * 32);
  return 0;
}

#endif
