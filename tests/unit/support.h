/* Test support shared by several test programs (support.c, linked into
 * every test binary; libc and the library only). */
#ifndef CUZK_TESTS_SUPPORT_H
#define CUZK_TESTS_SUPPORT_H

/* 1 (after printing "SKIP: ...") when GPU tests cannot run here: no usable
 * GPU, or an AddressSanitizer build (the CUDA runtime and ASan's shadow
 * memory do not mix). The caller then exits 77, which tests/run-all counts
 * as skipped. */
int gpu_tests_unavailable(void);

/* Lines of the file at path containing both needles (needle2 may be NULL);
 * -1 when the file cannot be read. */
int count_lines_with(const char *path, const char *needle1, const char *needle2);

#endif
