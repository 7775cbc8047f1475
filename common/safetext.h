/*
 * safetext.h - text that came from outside (other users' process names, a
 * file, the peer, a child's error line) made safe to print: no byte of it
 * can drive the terminal it is shown on, and it is valid UTF-8, as JSON
 * needs.
 */
#ifndef SAFETEXT_H
#define SAFETEXT_H

#include <stddef.h>

/* safetext_printable - s has no control character (below 0x20, or DEL) */
int safetext_printable(const char *s);
/*
 * safetext_copy - s into buf (len bytes, always terminated, cut short to
 * fit): printable ASCII and valid UTF-8 as they are; control characters
 * (C0, DEL and the C1 range) and bytes that are not UTF-8 as \xHH.
 * Returns buf.
 */
const char *safetext_copy(char *buf, size_t len, const char *s);

#endif
