/* Switches read from the environment (CUZK_NO_ASM=1 and the like). */
#ifndef CUZK_UTIL_ENV_H
#define CUZK_UTIL_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the variable `name` is set, not empty and does not start with '0'. */
int cuzk_env_flag(const char *name);

#ifdef __cplusplus
}
#endif

#endif
