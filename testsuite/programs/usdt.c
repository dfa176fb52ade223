/* usdt.c - SDT markers from sys/sdt.h with semaphores: "tick" fires
 * always, "guarded" only while a tracer has its semaphore raised.
 * (libtrace.c has a marker without a semaphore.)
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <sys/sdt.h>

unsigned short tapir_tick_semaphore __attribute__((section(".probes")));
unsigned short tapir_guarded_semaphore __attribute__((section(".probes")));

struct item {
	int id;
	const char *name;
};

int main(int argc, char **argv)
{
	struct item it = { 7, "seven" };
	long total = 0;
	int i;

	(void)argv;
	for (i = 0; i < 3; i++) {
		total += i * argc;
		STAP_PROBE3(tapir, tick, i, total, &it);
	}
	if (tapir_guarded_semaphore)
		STAP_PROBE2(tapir, guarded, it.id, it.name);
	printf("total=%ld\n", total);
	return 0;
}
