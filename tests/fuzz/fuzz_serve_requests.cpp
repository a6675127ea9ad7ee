// libFuzzer target for the request lines of `fone analyse patch --serve` (issue 33; app/cli/serve_request.h):
// the input is stdin, split by the bounded line reader (with --serve's 64 KB limit, and with a 64-byte one
// so that short inputs reach the over-long path too); each line goes through the bounded JSON reader and
// the typed fields. The contract: a request whose fields are in their ranges (place -1000..1000, digit
// -1 or 0..9, an angle that is finite or absent with a digit, layer "head" or 0..4096, position
// -1..2^20), or std::invalid_argument whose answer (served_error) is one line of at most 500 bytes of the
// message (escaped) without nlohmann's "[json.exception"; anything else (another exception, a crash, a hang)
// is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "serve_request.h"

namespace {

namespace fc = fone::cli;

void check(bool ok) {
    if (!ok) __builtin_trap();
}

void check_request(const fone::PatchRequest& r) {
    check(r.place >= -1000 && r.place <= 1000);
    check(r.digit == -1 || (r.digit >= 0 && r.digit <= 9));
    check(r.digit >= 0 || std::isfinite(r.angle_degrees));
    check(r.layer == fone::kHeadLayer || (r.layer >= 0 && r.layer <= 4096));
    check(r.position >= -1 && r.position <= (1 << 20));
}

void serve_lines(const std::string& input, std::size_t max_bytes) {
    std::istringstream in(input);
    std::string line;
    bool too_long = false;
    while (fc::read_bounded_line(in, line, max_bytes, &too_long)) {
        check(line.size() <= max_bytes);
        if (too_long) continue;
        try {
            nlohmann::json request;
            check_request(fc::parse_serve_line(line, &request));
            check(request.is_object());
        } catch (const std::invalid_argument& e) {
            const std::string answer = fc::served_error(e.what());
            check(!answer.empty() && answer.size() <= 4 * fc::kMaxServeErrorBytes + 3);
            check(answer.find('\n') == std::string::npos);
            check(answer.find("[json.exception") == std::string::npos);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    serve_lines(input, fc::kMaxServeLineBytes);
    serve_lines(input, 64);
    return 0;
}
