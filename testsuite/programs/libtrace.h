/* libtrace.h - the interface of libtrace.so. */
#ifndef LIBTRACE_H
#define LIBTRACE_H

int lib_sum(const int *v, int n);
const char *lib_name(void);

#endif
