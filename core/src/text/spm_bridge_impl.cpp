// libfone_spm.so: the only code that includes SentencePiece's headers (see spm_bridge.h for why it is
// a library of its own, opened with dlopen).
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <unordered_map>

#include "text/spm_bridge.h"

namespace {

using sentencepiece::SentencePieceProcessor;

// Hands the training sentences to SentencePiece without a temporary file.
class Sentences : public sentencepiece::SentenceIterator {
  public:
    explicit Sentences(const std::vector<std::string>& sentences) : sentences_(sentences) {}
    bool done() const override { return i_ >= sentences_.size(); }
    void Next() override { ++i_; }
    const std::string& value() const override { return sentences_[i_]; }
    sentencepiece::util::Status status() const override { return {}; }

  private:
    const std::vector<std::string>& sentences_;
    std::size_t i_ = 0;
};

bool train(const std::vector<std::string>& sentences,
           const std::vector<std::pair<std::string, std::string>>& options, std::string& model,
           std::string& error) {
    Sentences iterator(sentences);
    const std::unordered_map<std::string, std::string> kwargs(options.begin(), options.end());
    const auto status = sentencepiece::SentencePieceTrainer::Train(kwargs, &iterator, &model);
    if (!status.ok()) error = status.ToString();
    return status.ok();
}

void* load(const std::string& model, std::string& error) {
    auto* processor = new SentencePieceProcessor;
    const auto status = processor->LoadFromSerializedProto(model);
    if (status.ok()) return processor;
    error = status.ToString();
    delete processor;
    return nullptr;
}

void release(void* processor) {
    delete static_cast<SentencePieceProcessor*>(processor);
}

bool encode(const void* processor, const std::string& text, std::vector<int>& ids, std::string& error) {
    const auto status = static_cast<const SentencePieceProcessor*>(processor)->Encode(text, &ids);
    if (!status.ok()) error = status.ToString();
    return status.ok();
}

bool decode(const void* processor, const std::vector<int>& ids, std::string& text, std::string& error) {
    const auto status = static_cast<const SentencePieceProcessor*>(processor)->Decode(ids, &text);
    if (!status.ok()) error = status.ToString();
    return status.ok();
}

int piece_count(const void* processor) {
    return static_cast<const SentencePieceProcessor*>(processor)->GetPieceSize();
}

std::string id_to_piece(const void* processor, int id) {
    return static_cast<const SentencePieceProcessor*>(processor)->IdToPiece(id);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const fone::SpmBridge* fone_spm_bridge() {
    static const fone::SpmBridge bridge{
        fone::SpmBridge::kVersion, train, load, release, encode, decode, piece_count, id_to_piece};
    return &bridge;
}
