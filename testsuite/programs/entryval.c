/* entryval.c - built -g -O2 for test-udwarf: a parameter that dies
 * after a call, which DWARF then places as its value at the function's
 * entry (DW_OP_entry_value), and a variable C only declares, defined in
 * assembler (the way the kernel's linker script defines jiffies).
 */
#include <stdio.h>

extern long asm_defined;
__asm__(".data\n.globl asm_defined\n.type asm_defined, @object\n"
	".size asm_defined, 8\n.balign 8\nasm_defined: .quad 42\n"
	".text\n");

__attribute__((noinline)) long sink(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* a is dead once sink(a) returns */
__attribute__((noinline)) long dead(long a, long b)
{
	long r = sink(a);

	r += sink(b);
	return r;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%ld %ld\n", dead(argc, 3), asm_defined);
	return 0;
}
