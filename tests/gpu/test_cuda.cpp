// The CUDA path, run for real (issues 15 and 39): a training step on the GPU equal to the CPU's (fp32, and
// within bf16 tolerance under autocast), `fone train --device cuda` to 99%, bf16 training's loss curve
// beside fp32's, evaluation and the analyses on the GPU against the CPU, a run resumed on the GPU from a CPU
// checkpoint and back. Without a visible GPU it exits 77 (CTest: skipped).
//
// No Qt: it builds and runs on an offline GPU node that has PyTorch and a compiler but not Qt
// (scripts/device-check.sh, docs/gpu.md), carried there prebuilt or built from source. `test_cuda NAME...`
// runs the cases named.
#include <csignal>
#include <filesystem>
#include <map>
#include <optional>

#include "checkpoints/run_model.h"
#include "fone/nn/device.h"
#include "fone/store/train_config.h"
#include "gpu_check.h"
#include "nn/device_setup.h"
#include "precision_tolerance.h"

namespace fs = std::filesystem;
using gpu_check::last_event;
using gpu_check::run_fone;
using nlohmann::json;

namespace {

const std::vector<std::string> kNoGpu = {"CUDA_VISIBLE_DEVICES=-1"};  // the GPU hidden from a child

std::string scratch_dir() {
    static const std::string d = gpu_check::scratch_folder();
    return d;
}
std::string runs() {
    return scratch_dir() + "/runs";
}

fone::TrainConfig small_config() {
    return fone::resolve_train_config(
        {{{"task", "dec-add"}, {"train_size", 1024}, {"val_size", 0}, {"test_size", 16}, {"seed", 3}}});
}

// The loss and the gradients of one batch of 256, on `device`, optionally under bf16 autocast.
struct Step {
    double loss = 0;
    std::vector<torch::Tensor> grads;  // on the CPU
};
Step one_step(const torch::Device& device, bool bf16) {
    torch::manual_seed(7);
    fone::RunModel r = fone::open_run_model(small_config(), "", fone::RunData::batches);
    r.model->to(device);
    const fone::Batch b = fone::to_device(fone::select_rows(r.train, torch::arange(256)), device);
    Step s;
    torch::Tensor loss;
    {
        const fone::Bf16Autocast autocast(device, bf16);
        loss = r.scheme->loss(r.model, b, false);
    }
    loss.backward();
    s.loss = loss.item<double>();
    for (const auto& p : r.model->parameters())
        s.grads.push_back(p.grad().defined() ? p.grad().to(torch::kCPU).clone() : torch::zeros_like(p).cpu());
    return s;
}

std::string text(double v) {
    return std::to_string(v);
}

void training_step_equals_the_cpus() {
    const Step cpu = one_step(torch::kCPU, false);
    const Step gpu = one_step(torch::Device(torch::kCUDA), false);
    GPU_CHECK(std::abs(cpu.loss - gpu.loss) <= 1e-4 * std::abs(cpu.loss),
              "cpu " + text(cpu.loss) + ", cuda " + text(gpu.loss));
    const double d = fone_test::relative_difference(cpu.grads, gpu.grads);
    GPU_CHECK(d < 1e-3, "gradients differ by " + text(d));
}

void bf16_autocast_step_within_bf16_tolerance() {
    const Step cpu = one_step(torch::kCPU, false);
    const Step bf16 = one_step(torch::Device(torch::kCUDA), true);
    // bf16 keeps 8 significant bits (0.4%); a few layers of products: a few percent.
    GPU_CHECK(std::abs(cpu.loss - bf16.loss) <= fone_test::kBf16StepLoss * std::abs(cpu.loss),
              "cpu " + text(cpu.loss) + ", cuda bf16 " + text(bf16.loss));
    const double d = fone_test::relative_difference(cpu.grads, bf16.grads);
    GPU_CHECK(d < fone_test::kBf16StepGradients, "gradients differ by " + text(d));
    GPU_CHECK(cpu.loss != bf16.loss, "the bf16 loss is the fp32 loss to the bit: autocast did nothing");
}

void train_to_99_percent_on_cuda() {
    const auto r = run_fone({"train", "--task", "dec-add", "--train-size", "51200", "--target-acc", "0.99",
                             "--device", "cuda", "--runs-dir", runs(), "--name", "gpu99"});
    GPU_CHECK(r.code == 0, r.err);
    GPU_CHECK(last_event(r.out, "start").value("device", "").substr(0, 4) == "cuda", r.out.substr(0, 400));
    const json end = last_event(r.out, "end");
    GPU_CHECK(end.value("best_exact_match", 0.0) >= 0.99, end.dump());
}

// The same model trained 200 steps in fp32 and in bf16 on the GPU: the loss curves follow each other by the
// rule of precision_tolerance.h; and `fone train --precision bf16` on the GPU records it and finishes.
void bf16_training_follows_fp32() {
    const fone::TrainConfig c = fone::resolve_train_config({{{"task", "dec-add"},
                                                             {"train_size", 8192},
                                                             {"val_size", 0},
                                                             {"test_size", 16},
                                                             {"batch", 256},
                                                             {"seed", 3}}});
    const torch::Device cuda(torch::kCUDA);
    const auto fp32 = fone_test::loss_curve(c, cuda, false, 200),
               bf16 = fone_test::loss_curve(c, cuda, true, 200);
    std::string why;
    GPU_CHECK(fone_test::curves_agree(fp32, bf16, why), why);
    std::cout << "  loss curves: " << why << std::endl;
    const auto r = run_fone({"train", "--task", "dec-add", "--train-size", "8192", "--epochs", "2", "--seed",
                             "5", "--device", "cuda", "--precision", "bf16", "--snapshots", "none",
                             "--runs-dir", runs(), "--name", "bf16"});
    GPU_CHECK(r.code == 0, r.err);
    GPU_CHECK(last_event(r.out, "start").value("precision", "") == "bf16", "start event");
    GPU_CHECK(last_event(r.out, "end").value("status", "") == "finished", last_event(r.out, "end").dump());
}

void eval_and_analyses_on_the_gpu_agree_with_the_cpu() {
    const auto gpu = run_fone({"eval", "--run", "gpu99", "--runs-dir", runs()});
    const auto cpu = run_fone({"eval", "--run", "gpu99", "--runs-dir", runs()}, kNoGpu);
    GPU_CHECK(gpu.code == 0 && cpu.code == 0, gpu.err + cpu.err);
    const double g = gpu_check::json_lines(gpu.out).empty()
                         ? -1
                         : gpu_check::json_lines(gpu.out)[0].value("exact_match", -1.0);
    const double c = gpu_check::json_lines(cpu.out).empty()
                         ? -1
                         : gpu_check::json_lines(cpu.out)[0].value("exact_match", -1.0);
    GPU_CHECK(g >= 0.99 && std::abs(g - c) <= 0.005, "cuda " + text(g) + ", cpu " + text(c));
    auto spectrum = [&](const std::string& out) {
        return std::vector<std::string>{"analyse",   "spectrum", "--source",   "run",
                                        "--run",     "gpu99",    "--runs-dir", runs(),
                                        "--numbers", "200",      "--out",      scratch_dir() + "/" + out};
    };
    const auto sg = run_fone(spectrum("spec"));
    const auto sc = run_fone(spectrum("spec-cpu"), kNoGpu);
    GPU_CHECK(sg.code == 0 && sc.code == 0, sg.err + sc.err);
    GPU_CHECK(gpu_check::json_lines(sg.out).size() == gpu_check::json_lines(sc.out).size(), sg.out + sc.out);
    const auto p = run_fone({"predict", "--run", "gpu99", "--runs-dir", runs(), "123.456+654.321="});
    GPU_CHECK(p.code == 0, p.err);
    const auto lines = gpu_check::json_lines(p.out);
    GPU_CHECK(!lines.empty() && lines[0].value("value", "") == "777.777", p.out);
}

// `fone train ARGS` with `env`, stopped with SIGTERM once `file` is newer than `since`; its stdout.
std::string train_until(const std::vector<std::string>& args, const std::vector<std::string>& env,
                        const fs::path& file, fs::file_time_type since) {
    const std::string scratch = gpu_check::scratch_folder();
    const pid_t pid = gpu_check::start(gpu_check::fone_program(), args, env, scratch);
    const auto t0 = std::chrono::steady_clock::now();
    std::error_code ec;
    while (std::chrono::steady_clock::now() - t0 < std::chrono::minutes(5) &&
           !(fs::exists(file, ec) && fs::last_write_time(file, ec) > since))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(pid, SIGTERM);
    gpu_check::wait_for(pid, 120);
    return gpu_check::read_whole(scratch + "/out");
}

void resume_on_the_gpu_from_a_cpu_checkpoint_and_back() {
    const fs::path dir = runs() + "/moves", last = dir / "checkpoint-last.safetensors";
    const std::vector<std::string> args = {
        "train", "--task",     "dec-add", "--train-size", "8192", "--epochs", "6", "--checkpoint-every",
        "8",     "--runs-dir", runs(),    "--name",       "moves"};
    const std::string first = train_until(args, kNoGpu, last, fs::file_time_type::min());
    GPU_CHECK(last_event(first, "start").value("device", "") == "cpu", first.substr(0, 400));
    GPU_CHECK(last_event(first, "end").value("status", "") == "stopped", last_event(first, "end").dump());
    // On the GPU (device auto), until it has written a checkpoint of its own.
    const std::string second =
        train_until({"train", "--resume", dir.string()}, {}, last, fs::last_write_time(last));
    GPU_CHECK(last_event(second, "start").value("device", "").substr(0, 4) == "cuda", second.substr(0, 400));
    // And back on the CPU, to the end.
    const auto rest = run_fone({"train", "--resume", dir.string()}, kNoGpu);
    GPU_CHECK(rest.code == 0, rest.err);
    GPU_CHECK(last_event(rest.out, "start").value("device", "") == "cpu", rest.out.substr(0, 400));
    const json end = last_event(rest.out, "end");
    GPU_CHECK(end.value("status", "") == "finished", end.dump());
    GPU_CHECK(end.value("best_exact_match", 0.0) > 0.5, end.dump());
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<gpu_check::Case> cases = {
        {"training_step_equals_the_cpus", training_step_equals_the_cpus},
        {"bf16_autocast_step_within_bf16_tolerance", bf16_autocast_step_within_bf16_tolerance},
        {"train_to_99_percent_on_cuda", train_to_99_percent_on_cuda},
        {"bf16_training_follows_fp32", bf16_training_follows_fp32},
        {"eval_and_analyses_on_the_gpu_agree_with_the_cpu", eval_and_analyses_on_the_gpu_agree_with_the_cpu},
        {"resume_on_the_gpu_from_a_cpu_checkpoint_and_back",
         resume_on_the_gpu_from_a_cpu_checkpoint_and_back}};
    if (argc == 2 && std::string(argv[1]) == "--list") return gpu_check::list_cases(cases);
    if (!fone::cuda_available()) {
        std::puts("test_cuda: no CUDA GPU visible (or a LibTorch without CUDA): skipped");
        return 77;  // CTest: SKIP_RETURN_CODE
    }
    const int rc = gpu_check::run_cases(cases, argc, argv);
    std::error_code ec;
    fs::remove_all(scratch_dir(), ec);
    return rc;
}
