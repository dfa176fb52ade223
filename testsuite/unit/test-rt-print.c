/* test-rt-print.c - unit tests for runtime/stp_vsprintf.c, stp_print.c
 * and stp_string.c: every directive against the established tool's
 * output, %m/%M faults, the per-CPU print buffer and its flushing (no
 * output is lost past 8 KB), and the bounded string helpers.
 */
#include "kshim-print.h"
#include "stp_vsprintf.c"
#include "stp_print.c"
#include "stp_string.c"

#include "tap.h"

#include <stdio.h>

/* ---- The transport, as the print buffer sees it ------------------ */

static char sent[1 << 16];
static size_t nsent;
static int nwrites;
static size_t longest_write;
static bool writes_end_in_newline;

void _stp_transport_write(const char *data, size_t len)
{
	if (len > longest_write)
		longest_write = len;
	if (!len || data[len - 1] != '\n')
		writes_end_in_newline = false;
	if (nsent + len <= sizeof(sent))
		memcpy(sent + nsent, data, len);
	nsent += len;
	nwrites++;
}

static void sent_reset(void)
{
	nsent = 0;
	nwrites = 0;
	longest_write = 0;
	writes_end_in_newline = true;
}

/* ---- Formatting -------------------------------------------------- */

static char out[1024];

static const char *fmt(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	_stp_vsnprintf(out, sizeof(out), f, ap);
	va_end(ap);
	return out;
}

#define L(x) ((int64_t)(x))

static void test_integers(void)
{
	tap_str_eq(fmt("%d,%d,%d,%d,%d", L(1), L(10), L(9000000000000),
		       L(-1), L(-1024)),
		   "1,10,9000000000000,-1,-1024", "%%d");
	tap_str_eq(fmt("%d|%d", L(INT64_MIN), L(INT64_MAX)),
		   "-9223372036854775808|9223372036854775807",
		   "%%d of the extremes");
	tap_str_eq(fmt("%2d|%16d|%i", L(10), L(-1024), L(-7)),
		   "10|           -1024|-7", "%%d with a width, %%i");
	tap_str_eq(fmt("%016d|%016d", L(-1), L(9000000000000)),
		   "-000000000000001|0009000000000000", "%%016d");
	tap_str_eq(fmt("%u|%u", L(-1), L(-1024)),
		   "18446744073709551615|18446744073709550592",
		   "%%u is the unsigned 64-bit value");
	tap_str_eq(fmt("%x|%X|%x", L(-1), L(9000000000000), L(-1024)),
		   "ffffffffffffffff|82F79CD9000|fffffffffffffc00",
		   "%%x and %%X are 64-bit two's complement");
	tap_str_eq(fmt("%016x|%16X", L(10), L(10)),
		   "000000000000000a|               A", "%%016x, %%16X");
	tap_str_eq(fmt("%o|%o", L(9000000000000), L(-1)),
		   "202757163310000|1777777777777777777777", "%%o");
	tap_str_eq(fmt("%#o|%#o|%#o", L(1), L(10), L(0)), "01|012|00",
		   "%%#o prefixes 0, even to 0");
	tap_str_eq(fmt("%#x|%#X|%#x", L(10), L(255), L(0)), "0xa|0XFF|0x0",
		   "%%#x prefixes 0x, even to 0");
	tap_str_eq(fmt("%#d|%#u", L(-5), L(5)), "-5|5", "%%#d is %%d");
	tap_str_eq(fmt("%+d|% d|%+d|% d", L(5), L(5), L(-5), L(-5)),
		   "+5| 5|-5|-5", "+ and space on %%d");
	tap_str_eq(fmt("%+u|% x|%+o", L(5), L(5), L(5)), "5|5|5",
		   "+ and space only sign %%d and %%i");
	tap_str_eq(fmt("%-5d|%-5x|", L(42), L(42)), "42   |2a   |",
		   "- pads on the right");
	tap_str_eq(fmt("%05d|%05x", L(-42), L(42)),
		   "-0042|0002a", "0 pads after the sign");
	tap_str_eq(fmt("%.3d|%8.3d|%-8.3d|", L(5), L(5), L(-5)),
		   "005|     005|-005    |", "precision gives digits");
	tap_str_eq(fmt("%08.3d|%.0d|%.0x", L(5), L(0), L(0)),
		   "00000005|0|0",
		   "0 still pads with a precision; 0 always shows a digit");
	tap_str_eq(fmt("%-08d|", L(5)), "5       |", "- beats 0");
	/* The established tool reads one flag, then a width: a '0' after
	 * a flag is part of the width, not zero padding.
	 */
	tap_str_eq(fmt("%#010x|%-05d|%+05d|% 05d|", L(255), L(42), L(42),
		       L(42)),
		   "      0xff|42   |  +42|   42|",
		   "0 after a flag starts the width");
	tap_str_eq(fmt("%#-10x|%-+5d|%0-5d|", L(255), L(42), L(42)),
		   "0xff      |+42  |42   |",
		   "more flags have their C meaning");
	tap_str_eq(fmt("%ld|%lx|%lu|%lld|%hd", L(-1), L(255), L(7), L(-2),
		       L(70000)),
		   "-1|ff|7|-2|70000", "length modifiers are ignored");
	tap_str_eq(fmt("%*d|%*d|%.*d|%.*d", L(5), L(42), L(-5), L(42), L(3),
		       L(7), L(-1), L(7)),
		   "   42|42|007|7",
		   "* width and precision are int64; negative ones are 0");
}

static void test_pointers(void)
{
	tap_str_eq(fmt("%p|%p|%p", L(0), L(1), L(0x12345678abcdef00)),
		   "0x0|0x1|0x12345678abcdef00", "%%p is %%#x, not padded");
	tap_str_eq(fmt("%20pX|%-20pX", L(0x12345678), L(1)),
		   "          0x12345678X|0x1                 X",
		   "%%p with a width");
	tap_str_eq(fmt("%.20p|%20.8pX", L(0), L(1)),
		   "0x00000000000000000000|          0x00000001X",
		   "%%p with a precision");
	tap_str_eq(fmt("%020p|%8p", L(1), L(0x12345678)),
		   "0x000000000000000001|0x12345678", "%%020p, %%8p");
}

static void test_chars(void)
{
	int n;

	tap_str_eq(fmt("%c%c%c|%3c|%-3c|%03c", L('a'), L('b'), L(0x141),
		       L('x'), L('y'), L('z')),
		   "abA|  x|y  |  z",
		   "%%c takes the low byte and pads with spaces");
	n = _stp_snprintf(out, sizeof(out), "<%c>", L(0));
	tap_ok(n == 3 && !memcmp(out, "<\0>", 4), "%%c of 0 is a NUL byte");
	tap_str_eq(fmt("%#c%#c%#c%#c%#c%#c%#c%#c%#c", L('\a'), L('\b'),
		       L('\f'), L('\n'), L('\r'), L('\t'), L('\v'), L('\''),
		       L('\\')),
		   "\\a\\b\\f\\n\\r\\t\\v\\'\\\\", "%%#c uses C escapes");
	tap_str_eq(fmt("%#c%#c%#c%#c%#c%#c", L(0), L(033), L(0177), L(0222),
		       L(0333), L(0377)),
		   "\\000\\033\\177\\222\\333\\377",
		   "%%#c uses octal for the rest");
	tap_str_eq(fmt("%#c%#c%#c%#c", L('a'), L('"'), L(' '), L('~')),
		   "a\" ~", "%%#c leaves printable ASCII alone");
	tap_str_eq(fmt("%#5c|%#-5c|%#2c", L('\n'), L(1), L('\n')),
		   "   \\n|\\001 |\\n", "%%#c pads the escape");
}

static void test_strings(void)
{
	int n;

	tap_str_eq(fmt("<%s>%s%s", "Foobar!", "", "x"), "<Foobar!>x", "%%s");
	tap_str_eq(fmt("%5s|%-5s|%.2s|%5.1s|", "abc", "abc", "abc", "abc"),
		   "  abc|abc  |ab|    a|", "%%s width and precision");
	n = _stp_snprintf(out, sizeof(out), "%05s|", "ab");
	tap_ok(n == 6 && !strcmp(out, "   ab|"),
	       "%%05s pads with spaces and writes no NUL");
	tap_str_eq(fmt("%.*s|%.*s|%.s|", L(2), "abcdef", L(-3), "abc", "abc"),
		   "ab|||", "%%.*s; a negative or empty precision is 0");
	tap_str_eq(fmt("%s|%6s", (char *)NULL, (char *)NULL),
		   "<NULL>|<NULL>", "%%s of NULL");
}

static void test_others(void)
{
	tap_str_eq(fmt("100%%|%5%|%-%"), "100%|%|%", "%%%%");
	tap_str_eq(fmt("%k|%5k|%"), "%k|%k|%",
		   "what is not a conversion prints as is");
	tap_str_eq(fmt("ab%-"), "ab%", "a directive cut short");
	tap_str_eq(fmt(""), "", "an empty format");
}

static bool bytes_eq(const char *f, int64_t a, int64_t b, const char *want,
		     int n, const char *name)
{
	char buf[32];
	int got;

	memset(buf, 'Z', sizeof(buf));
	got = _stp_snprintf(buf, sizeof(buf), f, a, b);
	if (!tap_ok(got == n && !memcmp(buf, want, n) && buf[n] == '\0',
		    "%s", name)) {
		tap_diag("length %d, want %d", got, n);
		return false;
	}
	return true;
}

static void test_binary(void)
{
	int64_t v = 0x0102030405060708LL;

	bytes_eq("%b", v, 0, "\x08\x07\x06\x05\x04\x03\x02\x01", 8,
		 "%b is 8 native-endian bytes");
	bytes_eq("%1b|%2b", 0x41, 0x4142, "A|BA", 4,
		 "%1b %2b give 1 and 2 bytes");
	bytes_eq("%4b", 0x41424344, 0, "DCBA", 4, "%4b gives 4 bytes");
	bytes_eq("%8b", -1, 0, "\xff\xff\xff\xff\xff\xff\xff\xff", 8,
		 "%8b of -1");
	bytes_eq("%.2b|%.1b", 0x4142, 0x43, "BA|C", 4,
		 "a precision gives the size");
	bytes_eq("%8.1b", 0x41, 0, "\0\0\0\0\0\0\0A", 8,
		 "a wider width pads with NULs before");
	bytes_eq("%-4.2b|", 0x4142, 0, "BA\0\0|", 5, "... or after with -");
	bytes_eq("%1.8b", 0x41, 0, "A\0\0\0\0\0\0\0", 8,
		 "a narrower width is ignored");
	bytes_eq("%3b", 0x41, 0, "A\0\0\0\0\0\0\0", 8,
		 "a width that is no size means 8 bytes");
	bytes_eq("%*b", 2, 0x4142, "BA", 2, "%*b");
}

/* ---- %m and %M --------------------------------------------------- */

static char kmem[256];
static char umem[16] = "user bytes here";

static void map_memory(void)
{
	int i;

	for (i = 0; i < (int)sizeof(kmem); i++)
		kmem[i] = (char)i;
	memcpy(kmem, "/etc/passwd", 11);
	stp_shim_kmem_lo = (unsigned long)kmem;
	stp_shim_kmem_hi = (unsigned long)kmem + sizeof(kmem);
	stp_shim_umem_lo = (unsigned long)umem;
	stp_shim_umem_hi = (unsigned long)umem + sizeof(umem);
}

static void test_memory(void)
{
	int64_t k = (int64_t)(unsigned long)kmem;
	int64_t u = (int64_t)(unsigned long)umem;

	map_memory();
	tap_str_eq(fmt("%m|%.5m|%.*m", k, k, L(11), k),
		   "/|/etc/|/etc/passwd", "%%m copies precision bytes (1)");
	tap_str_eq(fmt("%5m|%*m|%.0m", k, L(5), k, k), "    /|    /|/",
		   "%%m with a width; precision 0 is 1 byte");
	tap_str_eq(fmt("%4.5m|%15.5m|%-7.2m|", k, k, k),
		   "/etc/|          /etc/|/e     |", "%%m width and precision");
	tap_str_eq(fmt("%*.*M", L(14), L(6), k), "  2f6574632f70",
		   "%%M prints hex pairs");
	tap_str_eq(fmt("%.3M|%-8.2M|%M", k + 11, k, k + 200),
		   "0b0c0d|2f65    |c8", "%%M lower case, padding");
	tap_str_eq(fmt("%#.4m|%#.4M", u, u), "user|75736572",
		   "# reads user memory");
	tap_ok(!_stp_print_fault(&(unsigned long){ 0 }, &(int){ 0 }),
	       "no fault recorded after good reads");
}

static void test_memory_faults(void)
{
	int64_t k = (int64_t)(unsigned long)kmem;
	int64_t u = (int64_t)(unsigned long)umem;
	unsigned long addr = 0;
	int user = -1, n;

	map_memory();
	strcpy(out, "junk");
	n = _stp_snprintf(out, sizeof(out), "a%.4mb", k + 254);
	tap_ok(n == 0 && out[0] == '\0',
	       "a fault drops the output of sprintf");
	tap_int_eq(_stp_print_fault(&addr, &user), -EFAULT,
		   "... and is recorded");
	tap_ok(addr == (unsigned long)kmem + 256 && user == 0,
	       "... at the first unreadable kernel byte");

	n = _stp_snprintf(out, sizeof(out), "%.100M", k + 190);
	tap_ok(n == 0 && _stp_print_fault(&addr, &user) == -EFAULT &&
	       addr == (unsigned long)kmem + 256,
	       "a fault in a later chunk is found exactly");

	_stp_snprintf(out, sizeof(out), "%.4m", k);
	tap_int_eq(_stp_print_fault(&addr, &user), 0,
		   "the next good call clears the record");

	_stp_snprintf(out, sizeof(out), "%.4m", u);
	tap_int_eq(_stp_print_fault(&addr, &user), -EFAULT,
		   "user memory is not read as kernel memory");
	_stp_snprintf(out, sizeof(out), "%#.4m", k);
	tap_ok(_stp_print_fault(&addr, &user) == -EFAULT && user == 1 &&
	       addr == (unsigned long)kmem,
	       "nor kernel memory as user memory");
	_stp_snprintf(out, sizeof(out), "%.4m", L(0));
	tap_ok(_stp_print_fault(&addr, &user) == -EFAULT && addr == 0,
	       "a NULL address faults");
}

static void test_snprintf_bounds(void)
{
	char small[8];
	int n;

	memset(small, 'Z', sizeof(small));
	n = _stp_snprintf(small, 5, "%d", L(123456));
	tap_ok(n == 6 && !strcmp(small, "1234") && small[5] == 'Z',
	       "output is cut to size - 1 and the full length returned");
	n = _stp_snprintf(NULL, 0, "%s=%d", "abc", L(42));
	tap_int_eq(n, 6, "size 0 only measures");
	n = _stp_snprintf(small, 1, "xyz");
	tap_ok(n == 3 && small[0] == '\0', "size 1 gives \"\"");
	n = _stp_snprintf(out, sizeof(out), "%9000d", L(1));
	tap_int_eq(n, STP_PRINT_BUF_LEN, "a width is cut to the buffer size");
	n = _stp_snprintf(out, sizeof(out), "%.9000d", L(1));
	tap_int_eq(n, STP_PRINT_BUF_LEN, "so is a precision");
	n = _stp_snprintf(out, sizeof(out), "%99999999999999999999d", L(1));
	tap_int_eq(n, STP_PRINT_BUF_LEN, "even an absurd one");
	n = _stp_snprintf(out, sizeof(out), "%*d", L(INT64_MIN), L(1));
	tap_int_eq(n, 1, "the most negative * width is 0");
}

static unsigned int rnd(unsigned int n)
{
	static unsigned long long state = 20261122;

	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(state >> 33) % n;
}

/* Directives where the established tool and C agree, against glibc. */
static void test_against_libc(void)
{
	static const char *const flags[] = { "", "-", "+", " ", "0", "#" };
	static const char convs[] = "diuoxX";
	static const int64_t vals[] = {
		0, 1, -1, 7, 8, 9, 10, 15, 16, 255, -255, 4096, 123456789,
		-987654321, INT64_MIN, INT64_MAX, 0x7fffffff, -0x80000000LL,
	};
	unsigned int i, bad = 0;

	for (i = 0; i < 20000; i++) {
		char ours[64], theirs[64], fs[48], cfs[48];
		const char *fl = flags[rnd(ARRAY_SIZE(flags))];
		char conv = convs[rnd(6)];
		int64_t v = vals[rnd(ARRAY_SIZE(vals))];
		int width = rnd(3) ? (int)rnd(25) : -1;
		int prec = rnd(3) ? -1 : (int)rnd(22);
		char w[16] = "", p[16] = "";

		/* The places the established tool differs from C. */
		if ((*fl == '#' && (v == 0 || conv == 'o')) ||
		    (*fl == '0' && prec >= 0) || (prec == 0 && v == 0))
			continue;
		if (width >= 0)
			snprintf(w, sizeof(w), "%d", width);
		if (prec >= 0)
			snprintf(p, sizeof(p), ".%d", prec);
		snprintf(fs, sizeof(fs), "%%%s%s%s%c", fl, w, p, conv);
		snprintf(cfs, sizeof(cfs), "%%%s%s%sll%c", fl, w, p, conv);
		_stp_snprintf(ours, sizeof(ours), fs, v);
		snprintf(theirs, sizeof(theirs), cfs, (long long)v);
		if (strcmp(ours, theirs) && bad++ < 5)
			tap_diag("%s of %lld: ours \"%s\", libc \"%s\"", fs,
				 (long long)v, ours, theirs);
	}
	tap_ok(!bad, "integer directives agree with C where C agrees (%u "
	       "differ)", bad);
}

/* ---- The print buffer -------------------------------------------- */

static void test_print_buffer(void)
{
	char line[128], want[16384];
	size_t nwant = 0;
	int i;

	sent_reset();
	_stp_printf("before init %d\n", L(1));
	_stp_print("x");
	_stp_print_char('y');
	_stp_print_flush();
	tap_ok(nsent == 0, "nothing is printed before init");

	tap_int_eq(_stp_print_init(), 0, "_stp_print_init");
	_stp_printf("hello %s %d\n", "world", L(42));
	tap_ok(nwrites == 0, "printf waits for the flush");
	_stp_print_flush();
	tap_ok(nwrites == 1 && nsent == 15 &&
	       !memcmp(sent, "hello world 42\n", 15), "flush sends it whole");
	_stp_print_flush();
	tap_ok(nwrites == 1, "an empty buffer sends nothing");

	/* 10 KB of lines from one handler. */
	sent_reset();
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "%2d: %.*s\n", i, 95,
			 "1234567890123456789012345678901234567890123456789"
			 "01234567890123456789012345678901234567890123456");
		_stp_printf("%2d: %.*s\n", L(i), L(95),
			    "1234567890123456789012345678901234567890123456789"
			    "01234567890123456789012345678901234567890123456");
		memcpy(want + nwant, line, strlen(line));
		nwant += strlen(line);
	}
	_stp_print_flush();
	tap_ok(nsent == nwant && !memcmp(sent, want, nwant),
	       "%zu bytes of printf from one handler arrive whole", nwant);
	tap_ok(nwrites == 2 && longest_write <= STP_PRINT_BUF_LEN &&
	       writes_end_in_newline,
	       "... in %d writes, none cutting a printf", nwrites);
}

static void test_print_large(void)
{
	static char big[3001], want[20000];
	size_t i, n;

	memset(big, 'q', 3000);
	for (i = 0; i < 3000; i += 100)
		big[i] = '|';
	sent_reset();
	_stp_print("start\n");
	_stp_printf("%s%s%s%s\n", big, big, big, big);
	_stp_print_flush();
	n = snprintf(want, sizeof(want), "start\n%s%s%s%s\n", big, big, big,
		     big);
	tap_ok(nsent == n && !memcmp(sent, want, n),
	       "a 12 KB printf arrives whole and in order");
	tap_ok(longest_write <= STP_PRINT_BUF_LEN && !memcmp(sent, "start\n",
							      6),
	       "... through buffer-sized writes (%d)", nwrites);

	sent_reset();
	_stp_print("ab");
	_stp_print_n(want, 20000);
	_stp_print_flush();
	tap_ok(nsent == 20002 && !memcmp(sent + 2, want, 20000) &&
	       longest_write <= STP_PRINT_BUF_LEN,
	       "_stp_print_n of 20000 bytes arrives whole");

	sent_reset();
	for (i = 0; i < STP_PRINT_BUF_LEN + 10; i++)
		_stp_print_char((char)('a' + i % 26));
	_stp_print_flush();
	tap_ok(nsent == STP_PRINT_BUF_LEN + 10 && nwrites == 2 &&
	       sent[STP_PRINT_BUF_LEN] == (char)('a' + STP_PRINT_BUF_LEN % 26),
	       "_stp_print_char past the buffer flushes and goes on");

	sent_reset();
	_stp_printf("%-9000d|", L(7));
	_stp_print_flush();
	tap_ok(nsent == STP_PRINT_BUF_LEN + 1 && sent[0] == '7' &&
	       sent[nsent - 1] == '|', "a width wider than the buffer");
}

static void test_print_faults_and_cpus(void)
{
	unsigned long addr;
	int user;

	map_memory();
	sent_reset();
	_stp_print("kept ");
	_stp_printf("lost %.300m\n", (int64_t)(unsigned long)kmem);
	tap_int_eq(_stp_print_fault(&addr, &user), -EFAULT,
		   "a faulting printf is recorded");
	_stp_printf("%.3m\n", (int64_t)(unsigned long)kmem + 100);
	_stp_print_flush();
	tap_ok(nsent == 9 && !memcmp(sent, "kept def\n", 9),
	       "... and only its own output is dropped");

	sent_reset();
	stp_shim_set_cpu(1);
	_stp_print("on cpu 1\n");
	stp_shim_set_cpu(0);
	_stp_print("on cpu 0\n");
	_stp_print_flush();
	tap_ok(nsent == 9 && !memcmp(sent, "on cpu 0\n", 9),
	       "each CPU has its own buffer");
	stp_shim_set_cpu(2);
	_stp_print("on cpu 2\n");
	stp_shim_set_cpu(0);
	sent_reset();
	_stp_print_exit();
	tap_ok(nsent == 18 && nwrites == 2 &&
	       !memcmp(sent, "on cpu 1\non cpu 2\n", 18),
	       "_stp_print_exit flushes what is left on every CPU");
	_stp_printf("after exit\n");
	_stp_print_flush();
	_stp_print_exit();
	tap_ok(nsent == 18, "nothing is printed after exit");
}

/* ---- Strings ----------------------------------------------------- */

static void test_strings_helpers(void)
{
	static char a[MAXSTRINGLEN], b[MAXSTRINGLEN], d[MAXSTRINGLEN];
	static char big[MAXSTRINGLEN * 2];

	memset(big, 'z', sizeof(big) - 1);
	tap_ok(_stp_strcpy(d, "abc") == d && !strcmp(d, "abc"), "_stp_strcpy");
	_stp_strcpy(d, big);
	tap_ok(strlen(d) == MAXSTRINGLEN - 1, "... cuts to MAXSTRINGLEN - 1");
	_stp_strcpy(d, d);
	tap_ok(strlen(d) == MAXSTRINGLEN - 1, "... to itself");

	strcpy(a, "foo");
	strcpy(b, "bar");
	tap_ok(_stp_strcat(d, a, b) == d && !strcmp(d, "foobar"),
	       "_stp_strcat");
	_stp_strcat(a, a, b);
	tap_str_eq(a, "foobar", "... into a (s .= t)");
	_stp_strcat(b, "x-", b);
	tap_str_eq(b, "x-bar", "... into b (s = t . s)");
	_stp_strcat(b, b, b);
	tap_str_eq(b, "x-barx-bar", "... all three the same (s = s . s)");
	_stp_strcat(d, "", "");
	tap_str_eq(d, "", "... of two empty strings");
	memset(a, 'a', MAXSTRINGLEN - 11);
	a[MAXSTRINGLEN - 11] = '\0';
	_stp_strcat(a, a, "0123456789ABCDEF");
	tap_ok(strlen(a) == MAXSTRINGLEN - 1 &&
	       !strcmp(a + MAXSTRINGLEN - 11, "0123456789"),
	       "... cuts to MAXSTRINGLEN - 1");
	_stp_strcat(d, big, "tail");
	tap_ok(strlen(d) == MAXSTRINGLEN - 1 && d[MAXSTRINGLEN - 2] == 'z',
	       "... even when a alone is too long");

	tap_str_eq(_stp_lltoa(d, 0), "0", "_stp_lltoa(0)");
	tap_str_eq(_stp_lltoa(d, -1), "-1", "_stp_lltoa(-1)");
	tap_str_eq(_stp_lltoa(d, 1234567890123LL), "1234567890123",
		   "_stp_lltoa(1234567890123)");
	tap_str_eq(_stp_lltoa(d, INT64_MIN), "-9223372036854775808",
		   "_stp_lltoa(INT64_MIN)");
	tap_str_eq(_stp_lltoa(d, INT64_MAX), "9223372036854775807",
		   "_stp_lltoa(INT64_MAX)");
}

int main(void)
{
	test_integers();
	test_pointers();
	test_chars();
	test_strings();
	test_others();
	test_binary();
	test_snprintf_bounds();
	test_against_libc();
	test_print_buffer();
	test_memory();
	test_memory_faults();
	test_print_large();
	test_print_faults_and_cpus();
	test_strings_helpers();
	return tap_done();
}
