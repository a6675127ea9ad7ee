// What a forward pass of a model folder allocates, checked first (fone/pretrained/forward_memory.h).
#include "fone/pretrained/forward_memory.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "fone/pretrained/families.h"
#include "fone/store/model_config.h"

namespace fone::pretrained {
namespace {

// Elements of the weights outside the blocks (embedding, positions, final norm, LM head).
uint64_t outside_block_elements(const ModelFolder& m) {
    std::set<std::string> names;
    for (const Weight w : {Weight::embed, Weight::positions, Weight::final_norm_weight,
                           Weight::final_norm_bias, Weight::lm_head})
        if (std::string n = weight_name(m.config(), m.weight_prefix(), w); !n.empty()) names.insert(n);
    uint64_t n = 0;
    for (const std::string& name : names)
        n += m.tensor(name).elements();
    return n;
}

std::string gigabytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", bytes / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

}  // namespace

uint64_t forward_memory_bytes(const ModelFolder& m, const std::vector<BatchShape>& batches, bool logits,
                              bool all_weights) {
    const PretrainedConfig& c = m.config();
    // Every count below is bounded by the file's shapes (checked against config.json at open) and by the
    // input: long double keeps the arithmetic exact enough and free of overflow.
    long double total = 0;
    for (const WeightSpec& w : m.weights())
        total += static_cast<long double>(m.tensor(w.name).elements());
    const long double blocks = std::max<long double>(0, total - outside_block_elements(m));
    long double floats = all_weights ? total : c.layers <= 1 ? blocks : blocks / c.layers;
    const long double h = c.hidden, i = c.intermediate, heads = c.heads;
    const long double qkv = static_cast<long double>(c.heads + 2 * c.kv_heads) * c.head_dim;
    long double largest_work = 0;
    for (const BatchShape& b : batches) {
        const long double positions = static_cast<long double>(b.rows) * b.length;
        floats += positions * h + b.rows * ((c.layers + 2) * h + (logits ? c.vocab_size : 0));
        largest_work = std::max(largest_work, positions * (5 * h + 3 * i + qkv + 2 * heads * b.length));
    }
    const long double bytes = 4 * (floats + largest_work);
    return bytes >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

void check_forward_memory(const ModelFolder& m, const std::vector<BatchShape>& batches, bool logits,
                          bool all_weights) {
    const uint64_t need = forward_memory_bytes(m, batches, logits, all_weights);
    const uint64_t have = physical_memory_bytes();
    if (have == 0 || need <= have) return;
    int64_t longest = 0, rows = 0;
    for (const BatchShape& b : batches) {
        longest = std::max(longest, b.length);
        rows += b.rows;
    }
    const PretrainedConfig& c = m.config();
    throw PretrainedError(
        m.dir() + ": this forward needs about " + gigabytes(static_cast<double>(need)) + " (" +
        std::to_string(rows) + (rows == 1 ? " row" : " rows") + " of up to " + std::to_string(longest) +
        " tokens; " + std::to_string(c.heads) + " heads, hidden " + std::to_string(c.hidden) +
        ", intermediate " + std::to_string(c.intermediate) + ", vocabulary " + std::to_string(c.vocab_size) +
        "), more than this machine's " + gigabytes(static_cast<double>(have)) + " of memory");
}

}  // namespace fone::pretrained
