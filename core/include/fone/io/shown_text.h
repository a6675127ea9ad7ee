// Untrusted text (a name, a prompt, a line of a user's file) inside a one-line message: a message must stay
// one short line, and bytes from a file must never reach the terminal as escape sequences.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fone {

// text with control characters, DEL and invalid UTF-8 escaped as \xNN, cut after max_bytes of the text (at a
// character boundary) with "..." appended.
std::string shown_text(std::string_view text, std::size_t max_bytes = 60);

// Whether text is well-formed UTF-8 (no overlong forms, no surrogates).
bool valid_utf8(std::string_view text);

}  // namespace fone
