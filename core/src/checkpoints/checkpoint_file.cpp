// Checkpoint files as safetensors (checkpoints/checkpoint_file.h has the layout and the rules).
#include "checkpoints/checkpoint_file.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <type_traits>

#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_store.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace st = safetensors;

static_assert(std::endian::native == std::endian::little, "safetensors bytes are little-endian");

constexpr const char* kFormat = "fone-checkpoint/2";
constexpr const char* kOptimizerPrefix = "optimizer/";

struct DtypePair {
    torch::ScalarType torch_type;
    st::Dtype file_type;
};
constexpr DtypePair kDtypes[] = {{torch::kFloat32, st::Dtype::F32}, {torch::kFloat64, st::Dtype::F64},
                                 {torch::kFloat16, st::Dtype::F16}, {torch::kBFloat16, st::Dtype::BF16},
                                 {torch::kInt64, st::Dtype::I64},   {torch::kInt32, st::Dtype::I32},
                                 {torch::kUInt8, st::Dtype::U8},    {torch::kBool, st::Dtype::BOOL}};

st::Dtype file_dtype(torch::ScalarType t) {
    for (const DtypePair& d : kDtypes)
        if (d.torch_type == t) return d.file_type;
    throw std::invalid_argument(std::string("checkpoint: no safetensors dtype for ") + c10::toString(t));
}

std::string shape_text(const std::vector<int64_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
        t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
    throw RunError(path + ": corrupt checkpoint (" + why + ")");
}

// The model's tensors (parameters, then buffers) by name, in order.
std::vector<std::pair<std::string, torch::Tensor>> model_tensors(FoneTransformer& model) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : model->named_parameters())
        out.emplace_back(item.key(), item.value());
    for (const auto& item : model->named_buffers())
        out.emplace_back(item.key(), item.value());
    return out;
}

std::string optimizer_name(const std::string& param, const char* part) {
    return kOptimizerPrefix + param + "/" + part;
}

// The tensors of a checkpoint, kept alive (CPU, contiguous) until they are written.
class TensorList {
  public:
    void add(const std::string& name, const torch::Tensor& t) {
        kept_.push_back(t.detach().to(torch::kCPU).contiguous());
        const torch::Tensor& c = kept_.back();
        list_.push_back({name, file_dtype(c.scalar_type()), c.sizes().vec(), c.data_ptr(),
                         static_cast<std::size_t>(c.nbytes())});
    }
    const std::vector<st::TensorData>& list() const { return list_; }

  private:
    std::vector<torch::Tensor> kept_;
    std::vector<st::TensorData> list_;
};

// The optimiser's key for a parameter's state: LibTorch 1.x keys it by the TensorImpl's address written as
// text (c10::guts::to_string, gone in 2.x), 2.x by the address itself.
template <class State>
typename State::key_type optimizer_state_key(const State&, const torch::Tensor& param) {
    if constexpr (std::is_same_v<typename State::key_type, std::string>) {
        std::ostringstream text;  // what c10::guts::to_string wrote
        text << param.unsafeGetTensorImpl();
        return text.str();
    } else {
        return param.unsafeGetTensorImpl();
    }
}

// A parameter's AdamW state: none (nullopt) when it has had no gradient yet; nullptr when its entry holds no
// moments (LibTorch 2.x can leave an entry empty, or of another state type, after reading 1.13's archive).
std::optional<const torch::optim::AdamWParamState*> adamw_state_of(torch::optim::AdamW& opt,
                                                                   const torch::Tensor& param) {
    auto& state = opt.state();
    const auto it = state.find(optimizer_state_key(state, param));
    if (it == state.end()) return std::nullopt;
    const auto* s = dynamic_cast<const torch::optim::AdamWParamState*>(it->second.get());
    return s && s->exp_avg().defined() && s->exp_avg_sq().defined() ? s : nullptr;
}

void add_optimizer(TensorList& tensors, FoneTransformer& model, torch::optim::AdamW& opt) {
    for (const auto& item : model->named_parameters()) {
        const auto state_of = adamw_state_of(opt, item.value());
        if (!state_of) continue;  // a parameter that has had no gradient yet
        if (!*state_of)
            throw RunError("the optimiser state of '" + item.key() + "' has no moments: not written");
        const auto& s = **state_of;
        tensors.add(optimizer_name(item.key(), "exp_avg"), s.exp_avg());
        tensors.add(optimizer_name(item.key(), "exp_avg_sq"), s.exp_avg_sq());
        tensors.add(optimizer_name(item.key(), "step"), torch::tensor(s.step(), torch::kInt64));
    }
}

json position_json(const Position& p) {
    return {{"step", p.step}, {"epoch", p.epoch}, {"batch_in_epoch", p.batch_in_epoch}};
}

json times_json(const Position& p) {
    return {{"best_exact_match", p.best_exact_match},
            {"train_seconds", p.train_seconds},
            {"elapsed_seconds", p.elapsed_seconds},
            {"time_to_target", p.time_to_target},
            {"train_cpu_seconds", p.train_cpu_seconds}};
}

// A JSON object of metadata (nlohmann writes doubles so that they read back to the same bits).
json meta_object(const Checkpoint& c, const char* key) {
    json j;  // depth limited: the metadata is text from a file
    if (!parse_json_bounded(c.file->meta(key), c.path, j, nullptr) || !j.is_object())
        corrupt(c.path, std::string("metadata '") + key + "' is not a JSON object");
    return j;
}

int64_t whole_field(const Checkpoint& c, const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
        corrupt(c.path, std::string("position '") + key + "' is not a whole number >= 0");
    return it->get<int64_t>();
}

double number_field(const Checkpoint& c, const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        corrupt(c.path, std::string("times '") + key + "' is not a number");
    return it->get<double>();
}

// The metadata of an opened file (c.file), checked before anything trusts it.
void read_meta(Checkpoint& c) {
    if (c.file->meta("format") != kFormat)
        throw RunError(c.path + ": checkpoint format '" + shown_text(c.file->meta("format")) +
                       "' is not the one this build reads (" + kFormat + ")");
    json config;
    if (!parse_json_bounded(c.file->meta("config"), c.path, config, nullptr) || !config.is_object())
        corrupt(c.path, "its config is not a JSON object");
    try {
        c.config = TrainConfig::from_json(config);
        // A config that no run could have been trained with (heads 0, hidden 1e9) is damage, not a model.
        c.config.validate();
    } catch (const std::invalid_argument& e) {
        corrupt(c.path, "its config: " + std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
    }
    const json pos = meta_object(c, "position"), times = meta_object(c, "times");
    c.pos = {whole_field(c, pos, "step"),
             whole_field(c, pos, "epoch"),
             whole_field(c, pos, "batch_in_epoch"),
             number_field(c, times, "best_exact_match"),
             number_field(c, times, "train_seconds"),
             number_field(c, times, "elapsed_seconds"),
             number_field(c, times, "time_to_target")};
    // Checkpoints written before the CPU budget existed have no train_cpu_seconds: 0.
    if (times.contains("train_cpu_seconds"))
        c.pos.train_cpu_seconds = number_field(c, times, "train_cpu_seconds");
    if (c.pos.epoch > c.config.epochs) corrupt(c.path, "its position is impossible for its config");
    c.identity = c.file->meta("identity");
    const std::string& optimizer = c.file->meta("optimizer");
    if (optimizer != "adamw" && optimizer != "none") corrupt(c.path, "unknown optimizer state");
    c.has_optimizer = optimizer == "adamw";
    // The weights take at least 4 bytes per parameter: a config that describes a larger model than the
    // file holds is damage, refused before the model is built.
    double data_bytes = 0;
    for (const st::TensorInfo& t : c.file->tensors())
        data_bytes += static_cast<double>(t.end - t.begin);
    const double params = static_cast<double>(count_params(c.config.model, 0).without_embedding());
    if (params * 4 > data_bytes)
        corrupt(c.path, "its config describes " + std::to_string(static_cast<long long>(params)) +
                            " parameters, more than its tensors hold");
}

// A tensor of the file that must be there with this dtype and shape.
const st::TensorInfo& expect_tensor(const Checkpoint& c, const std::string& name, torch::ScalarType dtype,
                                    const std::vector<int64_t>& shape) {
    const st::TensorInfo* t = c.file->find(name);
    if (!t)
        throw RunError(c.path + ": the weights do not match the model of its config (" + name +
                       " is missing)");
    if (t->dtype != file_dtype(dtype) || t->shape != shape)
        throw RunError(c.path + ": the weights do not match the model of its config (" + name + " is " +
                       std::string(st::dtype_name(t->dtype)) + " " + shape_text(t->shape) +
                       ", the config makes " + std::string(st::dtype_name(file_dtype(dtype))) + " " +
                       shape_text(shape) + ")");
    return *t;
}

void copy_into(const Checkpoint& c, const st::TensorInfo& t, torch::Tensor& into) {
    const auto bytes = c.file->bytes(t);
    torch::NoGradGuard no_grad;
    if (into.device().is_cpu() && into.is_contiguous()) {
        std::memcpy(into.data_ptr(), bytes.data(), bytes.size());
        return;
    }
    auto staging = torch::empty(into.sizes(), into.options().device(torch::kCPU));
    std::memcpy(staging.data_ptr(), bytes.data(), bytes.size());
    into.copy_(staging);
}

}  // namespace

bool optimizer_state_complete(FoneTransformer& model, torch::optim::AdamW& opt) {
    for (const auto& item : model->named_parameters())
        if (const auto state_of = adamw_state_of(opt, item.value()); state_of && !*state_of) return false;
    return true;
}

void save_checkpoint(const std::string& path, FoneTransformer& model, torch::optim::AdamW* opt,
                     const TrainConfig& config, const Position& pos, const std::string& identity) {
    TensorList tensors;
    for (const auto& [name, t] : model_tensors(model))
        tensors.add(name, t);
    if (opt) add_optimizer(tensors, model, *opt);
    const std::map<std::string, std::string> meta = {{"format", kFormat},
                                                     {"config", config.to_json().dump()},
                                                     {"position", position_json(pos).dump()},
                                                     {"times", times_json(pos).dump()},
                                                     {"identity", identity},
                                                     {"optimizer", opt ? "adamw" : "none"}};
    try {
        st::write(path, tensors.list(), meta);
    } catch (const st::Error& e) {
        throw RunError(e.what());
    }
}

Checkpoint open_checkpoint(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw RunError(path + ": missing");
    const std::string name = fs::path(path).filename().string();
    if (name == kLegacyLastCheckpoint || name == kLegacyBestCheckpoint) throw legacy_checkpoint_error(path);
    Checkpoint c;
    c.path = path;
    try {
        c.file = st::File::open(path);
        read_meta(c);
    } catch (const st::Error& e) {
        // The format's own message ("<path>: not a valid safetensors file (...)", "<path>: no metadata
        // 'config'") as a checkpoint's damage; one that cannot be opened at all (a FIFO) as it is.
        std::string what = e.what();
        const bool damage = what.find("not a valid safetensors") != std::string::npos ||
                            what.find(": no metadata '") != std::string::npos;
        if (!damage) throw RunError(what);
        if (what.rfind(path + ": ", 0) == 0) what.erase(0, path.size() + 2);
        throw RunError(path + ": corrupt or truncated checkpoint (" + what + ")");
    }
    return c;
}

Checkpoint open_run_checkpoint(const std::string& run_dir, const std::string& path) {
    Checkpoint c = open_checkpoint(path);
    const std::string run = run_identity_of(run_dir);
    if (c.identity != run)
        throw RunError(path + ": belongs to another run (its identity " + shown_text(c.identity, 20) +
                       " is not " + run + ", the identity of " + (fs::path(run_dir) / kConfigFile).string() +
                       "): a checkpoint is used only with the run that wrote it");
    return c;
}

void load_weights(const Checkpoint& c, FoneTransformer& model) {
    auto tensors = model_tensors(model);
    std::vector<const st::TensorInfo*> found;
    for (const auto& [name, t] : tensors)
        found.push_back(&expect_tensor(c, name, t.scalar_type(), t.sizes().vec()));
    // Nothing in the file that the model does not have (beyond the optimiser's state); a set, so that a
    // file of a million tensors costs n log n, not n times the model's.
    std::set<std::string_view> model_names;
    for (const auto& item : tensors)
        model_names.insert(item.first);
    for (const st::TensorInfo& t : c.file->tensors()) {
        if (t.name.rfind(kOptimizerPrefix, 0) == 0) continue;
        if (!model_names.count(t.name))
            throw RunError(c.path + ": the weights do not match the model of its config (it has a tensor '" +
                           shown_text(t.name) + "' the model has not)");
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        copy_into(c, *found[i], tensors[i].second);
        // NaN or infinity in a weight (a diverged run, a damaged or crafted file) gives plausible-looking
        // numbers downstream: eval, predict, patch, knockout and export refuse it here, naming the tensor.
        if (!torch::isfinite(tensors[i].second).all().item<bool>())
            throw RunError(c.path + ": the weight '" + shown_text(tensors[i].first) +
                           "' holds NaN or infinite values (a diverged or damaged model is not loaded)");
    }
}

void load_optimizer(const Checkpoint& c, FoneTransformer& model, torch::optim::AdamW& opt) {
    if (!c.has_optimizer)
        throw RunError(c.path + ": holds no optimiser state (an exported model): it cannot be resumed");
    struct Found {
        torch::Tensor param;
        const st::TensorInfo *avg, *avg_sq, *step;
    };
    std::vector<Found> found;
    std::size_t optimizer_tensors = 0;
    for (const auto& item : model->named_parameters()) {
        const torch::Tensor& p = item.value();
        const st::TensorInfo* step = c.file->find(optimizer_name(item.key(), "step"));
        if (!step) continue;  // no state yet: AdamW makes it at the first step with a gradient
        const auto shape = p.sizes().vec();
        found.push_back({p, &expect_tensor(c, optimizer_name(item.key(), "exp_avg"), p.scalar_type(), shape),
                         &expect_tensor(c, optimizer_name(item.key(), "exp_avg_sq"), p.scalar_type(), shape),
                         &expect_tensor(c, optimizer_name(item.key(), "step"), torch::kInt64, {})});
        optimizer_tensors += 3;
    }
    std::size_t in_file = 0;
    for (const st::TensorInfo& t : c.file->tensors())
        in_file += t.name.rfind(kOptimizerPrefix, 0) == 0;
    if (in_file != optimizer_tensors)
        corrupt(c.path, "its optimiser state does not match the model's parameters");
    auto& state = opt.state();
    for (const Found& f : found) {
        int64_t step = 0;
        std::memcpy(&step, c.file->bytes(*f.step).data(), sizeof step);
        if (step < 0) corrupt(c.path, "a negative optimiser step");
        auto s = std::make_unique<torch::optim::AdamWParamState>();
        s->step(step);
        torch::Tensor avg = torch::empty_like(f.param), avg_sq = torch::empty_like(f.param);
        copy_into(c, *f.avg, avg);
        copy_into(c, *f.avg_sq, avg_sq);
        s->exp_avg(avg);
        s->exp_avg_sq(avg_sq);
        state[optimizer_state_key(state, f.param)] = std::move(s);
    }
}

RunError legacy_checkpoint_error(const std::string& path) {
    const fs::path p(path);
    return RunError(
        path +
        ": a checkpoint of an older fone (a LibTorch archive, which can run code when it is opened): "
        "not opened. If you trust where it came from, convert the run once: fone runs convert " +
        p.parent_path().string() + " --trust");
}

std::string model_checkpoint(const std::string& run_dir) {
    const fs::path dir(run_dir);
    std::error_code ec;
    for (const char* name : {kBestCheckpoint, kLastCheckpoint})
        if (fs::exists(dir / name, ec)) return (dir / name).string();
    for (const char* name : {kLegacyBestCheckpoint, kLegacyLastCheckpoint})
        if (fs::exists(dir / name, ec)) throw legacy_checkpoint_error((dir / name).string());
    return (dir / kLastCheckpoint).string();
}

std::string weights_digest(FoneTransformer& model) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& p : model->parameters()) {
        const auto c = p.detach().to(torch::kCPU).contiguous();
        const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
        for (std::size_t i = 0; i < static_cast<std::size_t>(c.nbytes()); ++i)
            h = (h ^ bytes[i]) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

}  // namespace fone
