#include "fone/analysis/snapshot_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "fone/io/safetensors.h"
#include "fone/store/run_store.h"

namespace fone {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "step-", kSuffix = ".safetensors";

// The step of a snapshot file's name, or -1.
std::int64_t step_of(const std::string& name) {
    if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return -1;
    const std::string_view digits(name.data() + kPrefix.size(),
                                  name.size() - kPrefix.size() - kSuffix.size());
    std::int64_t step = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
    return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() ? step : -1;
}

double meta_number(const safetensors::File& f, const std::string& key, double fallback) {
    const auto it = f.metadata().find(key);
    if (it == f.metadata().end()) return fallback;
    double v = 0;
    try {
        v = std::stod(it->second);
    } catch (const std::exception&) {
        throw RunError(f.path() + ": metadata \"" + key + "\" is not a number");
    }
    if (!std::isfinite(v)) throw RunError(f.path() + ": metadata \"" + key + "\" is not a finite number");
    return v;
}

}  // namespace

std::string snapshot_file_name(std::int64_t step) {
    char name[48];
    std::snprintf(name, sizeof name, "step-%08lld.safetensors", static_cast<long long>(step));
    return name;
}

std::vector<SnapshotFile> list_snapshots(const std::string& run_dir) {
    std::vector<SnapshotFile> out;
    std::error_code ec;
    for (fs::directory_iterator it(fs::path(run_dir) / kSnapshotsDir, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::int64_t step = step_of(it->path().filename().string());
        if (step >= 0 && it->is_regular_file(ec)) out.push_back({step, it->path().string()});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.step < b.step; });
    return out;
}

void thin_snapshots(const std::string& run_dir, int keep) {
    const std::vector<SnapshotFile> all = list_snapshots(run_dir);
    if (static_cast<int>(all.size()) <= std::max(2, keep)) return;
    for (std::size_t i = 1; i + 1 < all.size(); i += 2) {
        std::error_code ec;
        fs::remove(all[i].path, ec);
    }
}

Snapshot read_snapshot(const std::string& path) {
    try {
        const safetensors::File f = safetensors::File::open(path);
        if (f.metadata().count("format") == 0 || f.meta("format") != kSnapshotFormat)
            throw RunError(path + ": not a representation snapshot (no \"format\": \"" + kSnapshotFormat +
                           "\" in its metadata)");
        Snapshot s;
        s.path = path;
        // A step is a whole number a run can reach: NaN, 1e300 or 2.5 would become garbage (NaN cast to
        // int64 was -9223372036854775808 in timeline.csv).
        const double step = meta_number(f, "step", 0);
        if (!(step >= 0 && step <= 1e15) || step != std::floor(step))
            throw RunError(path + ": metadata \"step\" is not a whole number of steps (0 to 10^15)");
        s.step = static_cast<std::int64_t>(step);
        s.epoch = meta_number(f, "epoch", 0);
        s.exact_match = meta_number(f, "exact_match", -1);
        s.source = f.meta("source");
        std::stringstream list(f.meta("numbers"));
        for (std::string cell; std::getline(list, cell, ',');)
            s.numbers.push_back(Decimal::parse(cell));
        for (int layer = 0;; ++layer) {
            const safetensors::TensorInfo* t = f.find("layer." + std::to_string(layer));
            if (!t) break;
            if (t->dtype != safetensors::Dtype::F16 || t->shape.size() != 2 ||
                t->shape[0] != static_cast<std::int64_t>(s.numbers.size()) ||
                (s.dims && t->shape[1] != s.dims))
                throw RunError(path + ": layer." + std::to_string(layer) + " is not F16 [numbers, dims]");
            s.dims = t->shape[1];
            const auto bytes = f.bytes(*t);
            std::vector<float> values(t->elements());
            for (std::size_t i = 0; i < values.size(); ++i) {
                std::uint16_t h;
                std::memcpy(&h, bytes.data() + 2 * i, 2);  // little-endian, as the file (x86, ARM)
                values[i] = half_to_float(h);
            }
            s.layers.push_back(std::move(values));
        }
        if (s.layers.empty()) throw RunError(path + ": a snapshot without layers");
        return s;
    } catch (const safetensors::Error& e) {
        throw RunError(e.what());
    } catch (const NumberError& e) {
        throw RunError(path + ": metadata \"numbers\": " + e.what());
    }
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
    const int exponent = (h >> 10) & 0x1F;
    std::uint32_t mantissa = h & 0x3FF;
    std::uint32_t bits;
    if (exponent == 0x1F) {
        bits = sign | 0x7F800000u | (mantissa << 13);  // infinity, NaN
    } else if (exponent != 0) {
        bits = sign | (static_cast<std::uint32_t>(exponent - 15 + 127) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;  // ±0
    } else {
        // Subnormal: shift the mantissa up until its leading 1 is the implicit bit.
        int e = -14;
        while ((mantissa & 0x400) == 0) {
            mantissa <<= 1;
            --e;
        }
        bits = sign | (static_cast<std::uint32_t>(e + 127) << 23) | ((mantissa & 0x3FF) << 13);
    }
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

}  // namespace fone
