/* safetext.c - text from outside made safe to print */
#include "common/safetext.h"

#include <stdio.h>
#include <string.h>

int safetext_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/*
 * The length of the UTF-8 sequence of a printable character at p (RFC 3629:
 * no overlong form, no surrogate, nothing above U+10FFFF), or 0: a control
 * character or a byte that does not begin such a sequence.
 */
static size_t printable_seq(const unsigned char *p)
{
	unsigned char c = p[0];
	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0; /* ASCII controls, DEL, continuation bytes, overlong leads */
	size_t n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c == 0xc2)
		lo = 0xa0; /* U+0080..U+009F: the C1 controls (CSI is U+009B) */
	else if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

const char *safetext_copy(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0;
	if (!len)
		return buf;
	while (*p) {
		size_t n = printable_seq(p);
		if (n) {
			if (used + n >= len)
				break;
			memcpy(buf + used, p, n);
			used += n;
			p += n;
		} else {
			if (used + 4 >= len)
				break;
			snprintf(buf + used, len - used, "\\x%02x", *p);
			used += 4;
			p++;
		}
	}
	buf[used] = '\0';
	return buf;
}
