// Untrusted text in messages (fone/io/shown_text.h).
#include "fone/io/shown_text.h"

#include <cstdio>

namespace fone {
namespace {

// Length of the valid UTF-8 character at s[i] (1..4), or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    if (n == 2 && c < 0xC2) return 0;                       // overlong
    if (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogates
    if (n == 4 && (c > 0xF4 || (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))) return 0;
    return n;
}

// Whether s[i..] is the start of a character whose remaining bytes have not come yet.
bool incomplete_at_end(std::string_view s, std::size_t i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t n = (c >= 0xC2 && c <= 0xDF)   ? 2
                          : (c >> 4) == 0xE          ? 3
                          : (c >= 0xF0 && c <= 0xF4) ? 4
                                                     : 0;
    if (n == 0 || i + n <= s.size()) return false;
    for (std::size_t k = i + 1; k < s.size(); ++k)
        if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return false;
    return true;
}

}  // namespace

std::string complete_utf8(std::string_view bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t n = utf8_length(bytes, i);
        if (n > 0) {
            out.append(bytes.substr(i, n));
            i += n;
        } else if (incomplete_at_end(bytes, i)) {
            break;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++i;
        }
    }
    return out;
}

bool valid_utf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8_length(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string shown_text(std::string_view text, std::size_t max_bytes) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t n = utf8_length(text, i);
        if (i + std::max<std::size_t>(n, 1) > max_bytes) break;
        const unsigned char c = static_cast<unsigned char>(text[i]);
        // C0 controls, DEL, and the C1 controls U+0080..U+009F (a terminal may take U+009B for CSI).
        const bool control = (n == 1 && (c < 0x20 || c == 0x7F)) ||
                             (n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0);
        if (n == 0 || control) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    if (i < text.size()) out += "...";
    return out;
}

}  // namespace fone
