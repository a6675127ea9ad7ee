#include "probes/snapshot_writer.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "fone/analysis/snapshot_file.h"
#include "fone/io/safetensors.h"
#include "probes/representations_of.h"

namespace fone {
namespace {

namespace fs = std::filesystem;

// A number as metadata text: short, and the same as Decimal::to_string.
std::string joined(const std::vector<std::string>& numbers) {
    std::string out;
    for (const std::string& x : numbers)
        out += (out.empty() ? "" : ",") + x;
    return out;
}

std::string number_meta(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

}  // namespace

std::vector<Decimal> probe_numbers(const RunModel& run) {
    if (run.text) return {};
    const bool mod_add = run.config.task.kind == TaskKind::mod_add;
    const int count = mod_add ? std::min(run.config.task.modulus, 1024) : kProbeNumbers;
    const bool hidden = uses_hidden_states(run.scheme->heads());
    const auto& vocab = run.scheme->vocabulary();
    std::vector<Decimal> out;
    for (int i = 0; i < count; ++i) {
        const Decimal x = Decimal::from_int(i);
        if (hidden) {
            try {
                check_fits(x, run.spec);
            } catch (const NumberError&) {
                continue;
            }
        } else if (std::find(vocab.begin() + kFirstNumberToken, vocab.end(), x.to_string()) == vocab.end()) {
            continue;
        }
        out.push_back(x);
    }
    return out;
}

void write_snapshot(RunModel& run, const torch::Device& device, const std::string& run_dir,
                    const SnapshotPoint& point) {
    if (run.config.snapshots == "none") return;
    const std::vector<Decimal> numbers = probe_numbers(run);
    if (numbers.empty()) return;
    const NumberRepresentations reps = representations_of(run.model, *run.scheme, device, numbers);

    std::vector<torch::Tensor> keep;  // the bytes the TensorData below point into
    std::vector<safetensors::TensorData> tensors;
    for (std::size_t l = 0; l < reps.layers.size(); ++l) {
        const auto& rows = reps.layers[l];
        const int64_t n = static_cast<int64_t>(rows.size()), d = static_cast<int64_t>(rows.at(0).size());
        auto t = torch::empty({n, d}, torch::kFloat32);  // rows_of gave plain floats
        for (int64_t i = 0; i < n; ++i)
            std::copy(rows[static_cast<std::size_t>(i)].begin(), rows[static_cast<std::size_t>(i)].end(),
                      t.data_ptr<float>() + i * d);
        keep.push_back(t.to(torch::kHalf).contiguous());
        tensors.push_back({"layer." + std::to_string(l),
                           safetensors::Dtype::F16,
                           {n, d},
                           keep.back().data_ptr(),
                           static_cast<std::size_t>(keep.back().nbytes())});
    }
    const std::map<std::string, std::string> meta = {{"format", kSnapshotFormat},
                                                     {"step", std::to_string(point.step)},
                                                     {"epoch", number_meta(point.epoch)},
                                                     {"exact_match", number_meta(point.exact_match)},
                                                     {"source", reps.source},
                                                     {"numbers", joined(reps.numbers)}};
    const fs::path dir = fs::path(run_dir) / kSnapshotsDir;
    fs::create_directories(dir);
    safetensors::write((dir / snapshot_file_name(point.step)).string(), tensors, meta);
    thin_snapshots(run_dir);
}

}  // namespace fone
