// A run's notes and tags, written by its user: why it was run, what it showed, and words to find it by.
// One file in the run folder, notes.json (kNotesFile), owned by this header: every reader and writer (the
// store's listing, `fone runs note | tag`, the window's notes pane) goes through it.
//
//   {"notes": "free text, up to 64 KB", "tags": ["baseline", "paper-fig3"], "updated":
//   "2026-11-28T17:20:00Z"}
//
// Written atomically (a temporary file beside it, renamed), never through a link. The trainer never writes
// it, so a resume keeps it; `fone export` and `fone runs pack` copy it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fone {

inline constexpr std::size_t kMaxNotesBytes = 64 * 1024;
inline constexpr std::size_t kMaxTags = 64;
inline constexpr std::size_t kMaxTagBytes = 40;

struct RunNotes {
    std::string text;               // "" : none
    std::vector<std::string> tags;  // in the order they were added, each once
    std::string updated;            // UTC, ISO 8601; "" when never written
};

// "" when tag can be a tag, else why not: 1 to 40 bytes of valid UTF-8, no spaces, commas or control
// characters, not starting with '+' or '-' (the marks of `fone runs tag RUN +add -remove`).
std::string tag_problem(const std::string& tag);

// The notes of run_dir: empty when notes.json is missing. RunError naming the file when it is not a
// regular file, not JSON, or holds the wrong types (text not a string, tags not valid tags).
RunNotes read_run_notes(const std::string& run_dir);

// Writes notes.json (updated set to now); RunError for text over kMaxNotesBytes or not UTF-8, a bad tag,
// more than kMaxTags tags, or a failed write (naming the file and the free space).
void write_run_notes(const std::string& run_dir, RunNotes notes);

// Tags after edits: "+name" (or a bare "name") adds it at the end unless present, "-name" removes it.
// std::invalid_argument naming the edit for a bad tag.
std::vector<std::string> apply_tag_edits(std::vector<std::string> tags,
                                         const std::vector<std::string>& edits);

// Tags typed in one line (the window's tags field): separated by spaces or commas, each once, in order.
std::vector<std::string> split_tags(const std::string& line);

}  // namespace fone
