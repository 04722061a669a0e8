#pragma once
// UTF-8 in and out. Text from a file or a command line may be any bytes: each invalid
// sequence decodes to U+FFFD, one per maximal subpart, as the WHATWG Encoding standard
// (TextDecoder, Node's buffer.toString) does, so that the UTF-16 offsets the tokenizer
// reports index the same string JavaScript decoded from those bytes.

#include <string>
#include <string_view>

#include "text/unicode.h"

namespace vitrel::text {

// The code points of `bytes`, each with its [start, end) in UTF-16 code units.
Chars decode_utf8(std::string_view bytes);

// Appends cp's UTF-8 (cp must be a Unicode scalar value or U+FFFD stands in).
void append_utf8(char32_t cp, std::string& out);

}  // namespace vitrel::text
