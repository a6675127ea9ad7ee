// notes.json: the one reader and writer of a run's notes and tags.
#include "fone/store/run_notes.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fone/io/json_files.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_store.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

std::string tag_problem(const std::string& tag) {
    if (tag.empty()) return "a tag may not be empty";
    if (tag.size() > kMaxTagBytes) return "a tag may have at most " + std::to_string(kMaxTagBytes) + " bytes";
    if (tag.front() == '+' || tag.front() == '-') return "a tag may not start with '+' or '-'";
    for (const char c : tag) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return "a tag may not contain control characters";
        if (c == ' ' || c == ',') return "a tag may not contain spaces or commas";
    }
    if (!valid_utf8(tag)) return "a tag must be valid UTF-8";
    return "";
}

namespace {

std::string notes_path(const std::string& run_dir) {
    return (fs::path(run_dir) / kNotesFile).string();
}

// The problems of notes about to be written or just read ("" when none).
std::string notes_problem(const RunNotes& n) {
    if (n.text.size() > kMaxNotesBytes)
        return "notes may have at most " + std::to_string(kMaxNotesBytes / 1024) + " KB";
    if (!valid_utf8(n.text)) return "notes must be valid UTF-8";
    if (n.tags.size() > kMaxTags) return "a run may have at most " + std::to_string(kMaxTags) + " tags";
    for (const std::string& t : n.tags)
        if (const std::string why = tag_problem(t); !why.empty()) return why + ": '" + shown_text(t) + "'";
    for (std::size_t i = 0; i < n.tags.size(); ++i)
        if (std::find(n.tags.begin(), n.tags.begin() + static_cast<std::ptrdiff_t>(i), n.tags[i]) !=
            n.tags.begin() + static_cast<std::ptrdiff_t>(i))
            return "the tag '" + shown_text(n.tags[i]) + "' is there twice";
    return "";
}

}  // namespace

RunNotes read_run_notes(const std::string& run_dir) {
    const std::string path = notes_path(run_dir);
    json j;
    std::string error;
    switch (load_json(path, j, error)) {
        case JsonLoad::missing:
            return {};
        case JsonLoad::bad:
            throw RunError(error);
        case JsonLoad::ok:
            break;
    }
    const auto bad = [&](const std::string& why) { return RunError(path + ": " + why); };
    if (!j.is_object()) throw bad("not a JSON object");
    RunNotes n;
    if (const auto it = j.find("notes"); it != j.end() && !it->is_null()) {
        if (!it->is_string()) throw bad("\"notes\" is not a string");
        n.text = it->get<std::string>();
    }
    if (const auto it = j.find("tags"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) throw bad("\"tags\" is not a list");
        if (it->size() > kMaxTags) throw bad("more than " + std::to_string(kMaxTags) + " tags");
        for (const json& t : *it) {
            if (!t.is_string()) throw bad("a tag is not a string");
            n.tags.push_back(t.get<std::string>());
        }
    }
    if (const auto it = j.find("updated"); it != j.end() && it->is_string())
        n.updated = it->get<std::string>();
    if (const std::string why = notes_problem(n); !why.empty()) throw bad(why);
    return n;
}

void write_run_notes(const std::string& run_dir, RunNotes notes) {
    if (const std::string why = notes_problem(notes); !why.empty()) throw RunError(why);
    notes.updated = utc_now_iso();
    const json j = {{"notes", notes.text}, {"tags", notes.tags}, {"updated", notes.updated}};
    write_json_atomic(notes_path(run_dir), j);
}

std::vector<std::string> apply_tag_edits(std::vector<std::string> tags,
                                         const std::vector<std::string>& edits) {
    for (const std::string& edit : edits) {
        const bool remove = !edit.empty() && edit.front() == '-';
        const std::string tag = !edit.empty() && (edit.front() == '+' || remove) ? edit.substr(1) : edit;
        if (const std::string why = tag_problem(tag); !why.empty())
            throw std::invalid_argument(why + ": '" + shown_text(edit) + "'");
        const auto it = std::find(tags.begin(), tags.end(), tag);
        if (remove && it != tags.end()) tags.erase(it);
        if (!remove && it == tags.end()) tags.push_back(tag);
    }
    return tags;
}

std::vector<std::string> split_tags(const std::string& line) {
    std::vector<std::string> tags;
    std::string word;
    const auto flush = [&] {
        if (!word.empty() && std::find(tags.begin(), tags.end(), word) == tags.end()) tags.push_back(word);
        word.clear();
    };
    for (const char c : line) {
        if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r')
            flush();
        else
            word += c;
    }
    flush();
    return tags;
}

}  // namespace fone
