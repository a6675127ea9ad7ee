// `fone export --run RUN --out DIR --format hf`: a fone-adapter run as a standard Hugging Face model folder.
// The adapter adds W FoNE(v) + b to the input embedding of every number piece of value v: a fixed vector
// per token once trained, so it is merged into the embedding table and the folder is a plain Llama (or
// Qwen2) that transformers and our reader load as any other.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/export_files.h"
#include "checkpoints/run_model.h"
#include "fone/checkpoints/checkpoint.h"
#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "fone/io/safetensors.h"
#include "fone/pretrained/families.h"
#include "fone/store/run_store.h"
#include "hf/init_from.h"
#include "schemes/adapter_scheme.h"

namespace fone {
namespace {

namespace fs = std::filesystem;

// Tensors to write, kept alive until the file is written.
struct Weights {
    std::vector<torch::Tensor> keep;
    std::vector<safetensors::TensorData> data;
    void add(const std::string& name, const torch::Tensor& t) {
        keep.push_back(t.detach().to(torch::kFloat32).contiguous());
        const torch::Tensor& k = keep.back();
        data.push_back({name, safetensors::Dtype::F32, k.sizes().vec(), k.data_ptr(),
                        static_cast<std::size_t>(k.nbytes())});
    }
};

// The exported config.json: the pretrained one, float32, and never tied (the merged input table differs
// from the output head at the number pieces).
nlohmann::json exported_config(nlohmann::json j) {
    j["tie_word_embeddings"] = false;
    j["torch_dtype"] = "float32";
    if (j.contains("dtype")) j["dtype"] = "float32";
    return j;
}

void write_folder(const std::string& run_dir, const RunModel& r, const std::string& tmp) {
    const fs::path kept = fs::path(run_dir) / kPretrainedFilesDir;
    const FileRead kept_config =
        read_regular_file((kept / "config.json").string(), kMaxJsonFileBytes, Links::refuse);
    if (!kept_config.ok()) throw RunError(kept_config.error + "; nothing exported");
    nlohmann::json parsed;
    std::string error;
    if (!parse_json_bounded(kept_config.text, (kept / "config.json").string(), parsed, &error))
        throw RunError(error);
    const nlohmann::json config = exported_config(parsed);
    auto c = pretrained::PretrainedConfig::from_json(config, (kept / "config.json").string());
    const auto& scheme = dynamic_cast<const AdapterScheme&>(*r.scheme);
    FoneTransformer model = r.model;
    torch::NoGradGuard no_grad;
    Weights w;
    w.add(pretrained::weight_name(c, "", pretrained::Weight::embed), merged_embedding(model, scheme));
    w.add(pretrained::weight_name(c, "", pretrained::Weight::lm_head),
          model->lm_head ? model->lm_head->weight : model->embed->weight);
    for (const pretrained::HfWeight& b : pretrained::block_weight_map(model, c, ""))
        w.add(b.name, b.rows_of());
    safetensors::write((fs::path(tmp) / "model.safetensors").string(), w.data, {{"format", "pt"}});
    write_json_atomic((fs::path(tmp) / "config.json").string(), config);
    // The tokenizer files the run kept, nothing else of that folder, and no link (copy_run_file).
    for (const char* name : kKeptPretrainedFiles) {
        std::error_code ec;
        if (std::string(name) != "config.json" &&
            fs::symlink_status(kept / name, ec).type() != fs::file_type::not_found)
            copy_run_file((kept / name).string(), (fs::path(tmp) / name).string());
    }
}

}  // namespace

void export_hf_model(const std::string& run_dir, const std::string& out_dir) {
    export_target(out_dir);  // refused before the run is opened
    Checkpoint c = open_run_checkpoint(run_dir, model_checkpoint(run_dir));
    if (!is_adapter_method(c.config.method))
        throw std::invalid_argument(
            "export --format hf: " + run_dir + " is a " + c.config.method +
            " run; only a fone-adapter run (the model's own tokens) becomes a Hugging "
            "Face model folder");
    RunModel r = open_run_model(c.config, run_dir, RunData::none, &c);
    write_new_folder(out_dir, [&](const std::string& tmp) { write_folder(run_dir, r, tmp); });
}

}  // namespace fone
