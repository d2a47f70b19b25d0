/*
 * The parse floor of the benchmark (issue 17 item 3): read a .gcdump file and decode every byte
 * of it as a stream of the compressed signed integers its node blob is made of (gcdump-format.md
 * §6.3: base-128, most significant group first, sign in bit 6 of the first byte, a fifth byte of
 * 8 bits). Records, offsets and addresses are all decoded as if they were varints, so this does at
 * least the work of decoding the node blob (the bulk of the file) plus reading the whole file:
 * no real parser can be faster than this on the same machine. Nothing is stored per value; the
 * sum and count are printed so the compiler cannot drop the loop.
 *
 * Built by test/perf/parse-floor.ts at bench time with the system compiler (cc -O2); never
 * committed as a binary. Usage: leb128-floor FILE [REPEATS]. Prints one JSON line per repeat:
 *   {"bytes":N,"ints":N,"sum":N,"readMs":R,"decodeMs":D,"wallMs":W,"cpuMs":C}
 * readMs is reading the file into memory (the page cache once warm), decodeMs the decode pass.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: leb128-floor FILE [REPEATS]\n");
    return 2;
  }
  int repeats = argc > 2 ? atoi(argv[2]) : 1;
  if (repeats < 1) repeats = 1;
  for (int r = 0; r < repeats; r++) {
    double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    struct stat st;
    if (fstat(fd, &st) != 0) { perror("fstat"); return 1; }
    size_t size = (size_t)st.st_size;
    /* 8 zero bytes of padding: a varint cut by the end of the file reads zeros, never past it. */
    uint8_t *buf = malloc(size + 8);
    if (!buf) { fprintf(stderr, "out of memory\n"); return 1; }
    size_t got = 0;
    while (got < size) {
      size_t want = size - got < (8u << 20) ? size - got : (8u << 20); /* the reader's chunk size */
      ssize_t n = read(fd, buf + got, want);
      if (n <= 0) { perror("read"); return 1; }
      got += (size_t)n;
    }
    close(fd);
    memset(buf + size, 0, 8);
    double w1 = now_ms(CLOCK_MONOTONIC);

    const uint8_t *p = buf, *end = buf + size;
    int64_t sum = 0;
    uint64_t ints = 0;
    while (p < end) {
      uint32_t b = *p++;
      int32_t v = (int32_t)(b & 0x3f) - (int32_t)(b & 0x40);
      if (b & 0x80) {
        b = *p++; v = (int32_t)((uint32_t)v << 7) + (int32_t)(b & 0x7f);
        if (b & 0x80) {
          b = *p++; v = (int32_t)((uint32_t)v << 7) + (int32_t)(b & 0x7f);
          if (b & 0x80) {
            b = *p++; v = (int32_t)((uint32_t)v << 7) + (int32_t)(b & 0x7f);
            if (b & 0x80) { b = *p++; v = (int32_t)(((uint32_t)v << 7) + b); }
          }
        }
      }
      sum += v;
      ints++;
    }
    double w2 = now_ms(CLOCK_MONOTONIC), c2 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    free(buf);
    printf("{\"bytes\":%zu,\"ints\":%llu,\"sum\":%lld,\"readMs\":%.1f,\"decodeMs\":%.1f,\"wallMs\":%.1f,\"cpuMs\":%.1f}\n",
           size, (unsigned long long)ints, (long long)sum, w1 - w0, w2 - w1, w2 - w0, c2 - c0);
    fflush(stdout);
  }
  return 0;
}
