/* stp_json.h - the one JSON string escaper of stap --json, shared by the
 * module (strings of the end-of-run objects) and staprun (printed lines):
 * both must escape the same bytes the same way (doc/json.md).
 */
#ifndef STP_JSON_H
#define STP_JSON_H

/* The longest escape of one input unit: "\udcff" or a 4-byte sequence. */
#define STP_JSON_ESC_MAX 6

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0
 * when s does not start one: no overlong forms, no surrogates, nothing
 * past U+10FFFF.
 */
static inline unsigned int stp_json_utf8_len(const unsigned char *s,
					     unsigned long n)
{
	unsigned int len, i;
	unsigned long cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* Escape the unit at s (n > 0 bytes left) into out, which has room for
 * STP_JSON_ESC_MAX bytes; returns the bytes written and sets *used to
 * the input bytes taken.  '"' and '\\' get a backslash; \b \f \n \r \t
 * their short forms; the other bytes below 0x20 and 0x7f become \u00XX;
 * well-formed UTF-8 passes as it is; any other byte XX (0x80-0xff) is
 * \udcXX, a lone low surrogate, as Python's "surrogateescape" writes
 * undecodable bytes, so that the original bytes can be recovered.
 */
static inline unsigned int stp_json_escape(char *out, const unsigned char *s,
					   unsigned long n,
					   unsigned long *used)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	unsigned int k;

	*used = 1;
	if (c == '"' || c == '\\') {
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	switch (c) {
	case '\b': out[1] = 'b'; return 2;
	case '\f': out[1] = 'f'; return 2;
	case '\n': out[1] = 'n'; return 2;
	case '\r': out[1] = 'r'; return 2;
	case '\t': out[1] = 't'; return 2;
	}
	if (c >= 0x80) {
		k = stp_json_utf8_len(s, n);
		if (k) {
			for (*used = 0; *used < k; (*used)++)
				out[*used] = (char)s[*used];
			return k;
		}
	}
	out[1] = 'u';
	out[2] = c >= 0x80 ? 'd' : '0';
	out[3] = c >= 0x80 ? 'c' : '0';
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	return 6;
}

#endif
