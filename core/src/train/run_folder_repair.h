// What a resume repairs or refuses in a run folder before it opens it: litter of writers that died mid-write,
// and a folder whose settings were never finished. Private to core/src/train/.
#pragma once

#include <string>

namespace fone {

// Temporary files ("<file>.tmp-<pid>") of writers that died mid-write (kill -9 while a checkpoint, a status
// or a snapshot was being written): the renamed file is whole, the temporary one is litter and is removed.
// The run folder and its snapshots folder.
void remove_stale_temporaries(const std::string& run_dir);

// A run folder of an older build killed while it was being made: no config.json, only the temporary of its
// write, which is the one copy of the run's settings. Throws RunError, and deletes nothing (the temporary
// is not litter here: remove_stale_temporaries would have deleted it).
void refuse_unfinished_creation(const std::string& run_dir);

}  // namespace fone
