// One run as one file to send someone: a .fonerun. `fone runs pack | unpack` and the window's Share… and
// File → Open call these.
//
// The file is a gzip-compressed POSIX tar archive (pax), written and read through libarchive, so any tar
// can list it (`tar tzf RUN.fonerun`). Its first member is the manifest, fonerun.json:
//
//   {"format": "fonerun-1", "run": "dec-add-fone-...", "created": "2026-11-28T17:20:00Z",
//    "fone_version": "0.1.0", "git_revision": "abc123", "made_by": "fone 0.1.0 (git abc123)",
//    "members": [{"name": "config.json", "size": 1905, "sha256": "…"}, ...], "total_bytes": N}
//
// then the run's files in the manifest's order: config.json, status.json, metrics.jsonl, summary.json,
// notes.json, checkpoint-best and checkpoint-last (safetensors), tokenizer.model, pretrained/*.json,
// data-parallel.json, archived.json, and with snapshots, snapshots/*.safetensors. Never a .pt file (a
// LibTorch archive can run code: such a run is converted first, `fone runs convert RUN --trust`), never the
// lock.
//
// Unpacking trusts nothing in the file. It refuses, with one line, before anything is written: a file that
// is not a gzip'd tar, a first member that is not the manifest, a manifest over 4 MB, not JSON, of another
// format, naming a member twice, more than kMaxPackMembers members, a member name that is not one of a run's
// files (which rules out "..", absolute paths and anything a run does not hold), or unpacked sizes that are
// a bomb (more than kMaxPackExpansion times the file, past the first 16 MB) or larger than the free space.
// Then, member by member into a hidden folder of the store: a member that is not a regular file (a link, a
// hard link, a device, a FIFO, a folder), not in the manifest, there twice, of another size than the
// manifest says, or whose SHA-256 differs; a file that ends early (truncated) or has members missing; a
// config.json that is not a JSON object, or a checkpoint or snapshot that is not a valid safetensors file.
// Any refusal removes the hidden folder: the store is as it was. Only a whole, checked run is renamed into
// place (a taken name gets "-2", "-3", ...).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fone/store/run_store.h"

namespace fone {

inline constexpr const char* kPackExtension = ".fonerun";
inline constexpr const char* kPackManifest = "fonerun.json";
inline constexpr const char* kPackFormat = "fonerun-1";
inline constexpr std::size_t kMaxPackMembers = 20000;
inline constexpr std::uint64_t kMaxPackManifestBytes = 4ull << 20;
// A run's files compress little (weights: ~1.1x; metrics text: ~10x): a file that unpacks to more than
// this many times its size, beyond the first kPackBombAllowance bytes, is refused as a bomb.
inline constexpr std::uint64_t kMaxPackExpansion = 100;
inline constexpr std::uint64_t kPackBombAllowance = 16ull << 20;

struct PackOptions {
    bool with_snapshots = false;  // snapshots/*.safetensors too (they can be most of a run)
};

struct PackResult {
    std::string file;
    std::uint64_t file_bytes = 0;  // the .fonerun's size
    std::uint64_t run_bytes = 0;   // the members' total
    std::size_t members = 0;
    nlohmann::json manifest;
};

// Packs run_dir into out_file (written to a temporary file beside it and renamed: never half a file).
// RunError for a run being trained, a run without config.json, a run whose checkpoints are .pt files only,
// an out_file that is a link or a folder, or a failed write (naming the free space).
PackResult pack_run(const std::string& run_dir, const std::string& out_file, const PackOptions& options = {});

struct UnpackResult {
    std::string name;         // the run's name in the store
    std::string dir;          // its folder
    std::string wanted_name;  // the name the file gave it (name != wanted_name: it was taken)
    std::uint64_t run_bytes = 0;
    nlohmann::json manifest;
};

// Unpacks a .fonerun into the store, as a new run named as the manifest says (or `name` when given).
// RunError with one line for every refusal above; the store is unchanged then.
UnpackResult unpack_run(const RunStore& store, const std::string& file, const std::string& name = "");
// The same for bytes already in memory (`what` names them in errors): the fuzzer's entry point.
UnpackResult unpack_run_bytes(const RunStore& store, std::string_view bytes, const std::string& what,
                              const std::string& name = "");

// Reads a .fonerun's manifest without unpacking it (the same checks as unpack's first step).
nlohmann::json read_pack_manifest(const std::string& file);

// "" when name is a member a .fonerun may hold, else why not.
std::string pack_member_problem(const std::string& name);

}  // namespace fone
