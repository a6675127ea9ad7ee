#include "fone/train/measure.h"

#include <algorithm>
#include <stdexcept>

#include "checkpoints/run_model.h"
#include "fone/nn/device.h"
#include "nn/device_setup.h"
#include "nn/gradients.h"
#include "nn/timing.h"

namespace fone {
namespace {

using nlohmann::json;

struct Measured {
    RunModel run;
    torch::Device device;
};

// A config's untrained model for a measurement: its splits (sizes as the caller set them) as batches,
// on the config's device, torch seeded by the config. Text runs report their speeds in their own events
// (text_refusal says so).
Measured measured_model(const TrainConfig& c, const char* text_refusal) {
    if (c.is_text()) throw std::invalid_argument("task " + c.text_task + ": " + text_refusal);
    set_threads(c.threads);
    const torch::Device device(resolve_device(c.device));
    torch::manual_seed(c.seed);
    RunModel r = open_run_model(c, "", RunData::batches);
    r.model->to(device);
    return {std::move(r), device};
}

// Seconds of the parts of one optimiser step, summed over the timed steps.
struct StepTimes {
    double batching = 0, forward = 0, backward = 0, optimizer = 0;
    double total() const { return batching + forward + backward + optimizer; }
};

}  // namespace

json measure_training_throughput(TrainConfig c, int steps, int warmup_steps) {
    c.train_size = std::max<std::size_t>(c.train_size, c.batch);
    c.val_size = 0;
    c.test_size = 1;
    auto [r, device] = measured_model(c,
                                      "training throughput is measured for the arithmetic tasks; a text run "
                                      "reports examples_per_second in its events");
    const Batch train = to_device(r.train, device);
    torch::optim::AdamW opt(r.model->parameters(),
                            torch::optim::AdamWOptions(c.lr).weight_decay(c.weight_decay));
    const int64_t batch = static_cast<int64_t>(c.batch);
    StepTimes t;
    auto sync = [&] {
        if (device.is_cuda()) torch::cuda::synchronize();
    };
    for (int s = 0; s < warmup_steps + steps; ++s) {
        const auto t0 = Clock::now();
        const Batch b = select_rows(train, torch::randint(train.n, {batch}, torch::kInt64).to(device));
        sync();
        const auto t1 = Clock::now();
        opt.zero_grad();
        torch::Tensor loss;
        {
            const Bf16Autocast autocast(device, c.precision == "bf16");
            loss = r.scheme->loss(r.model, b, true);
        }
        loss.item<double>();
        const auto t2 = Clock::now();
        loss.backward();
        if (c.clip > 0) clip_gradient_norm(r.model->parameters(), c.clip);
        sync();
        const auto t3 = Clock::now();
        opt.step();
        sync();
        const auto t4 = Clock::now();
        if (s < warmup_steps) continue;
        t.batching += std::chrono::duration<double>(t1 - t0).count();
        t.forward += std::chrono::duration<double>(t2 - t1).count();
        t.backward += std::chrono::duration<double>(t3 - t2).count();
        t.optimizer += std::chrono::duration<double>(t4 - t3).count();
    }
    const int seq = static_cast<int>(train.in.tokens.size(1));
    const double flops = train_flops_per_example(r.config.model, seq, train.targets.defined() ? seq : 1);
    const double rate = steps * static_cast<double>(batch) / t.total();
    return {{"examples_per_second", rate},
            {"flops_per_example", flops},
            {"gflops_per_second", rate * flops / 1e9},
            {"seconds", t.total()},
            {"steps", steps},
            {"batch", batch},
            {"sequence_length", seq},
            {"threads", torch::get_num_threads()},
            {"params", param_count(r.model).total},
            {"batching_seconds", t.batching},
            {"forward_seconds", t.forward},
            {"backward_seconds", t.backward},
            {"optimizer_seconds", t.optimizer}};
}

json measure_inference_speed(TrainConfig c, int repeats, std::size_t eval_examples) {
    c.train_size = 1;
    c.val_size = 0;
    c.test_size = eval_examples;
    auto [r, device] = measured_model(c,
                                      "inference speed is measured for the arithmetic tasks; a text run "
                                      "reports eval_seconds in its eval events");
    r.model->eval();
    torch::NoGradGuard no_grad;
    const Batch one = to_device(r.scheme->encode_prompt(r.splits.test.front().prompt()), device);
    std::vector<double> ms;
    for (int k = 0; k < repeats + 3; ++k) {
        const auto t0 = Clock::now();
        r.scheme->answer(r.model, one);
        if (k >= 3) ms.push_back(1e3 * seconds_since(t0));
    }
    std::sort(ms.begin(), ms.end());
    const json e = r.scheme->evaluate(r.model, r.test, device);
    return {{"single_latency_ms", ms[ms.size() / 2]},
            {"eval_examples_per_second", e["eval_examples_per_second"]},
            {"eval_examples", eval_examples},
            {"threads", torch::get_num_threads()}};
}

}  // namespace fone
