// Writing into folders someone else may have prepared (a run folder, a model folder or an output folder
// received from another person): every file this program writes, appends or updates is opened here, so that
// a symbolic link (to ~/.bashrc, /etc/passwd) or any other non-regular file (a FIFO, a device) in its place
// is refused with one line, never written through. The last component of the path is what is checked
// (O_NOFOLLOW): the folders on the way are the caller's choice.
#pragma once

#include <string>

namespace fone {

enum class WriteOpen {
    append,  // O_APPEND, created when missing (metrics.jsonl, a sweep cell's log)
    update,  // read and write in place, created when missing (train.lock)
    repair,  // read and write in place, never created (cutting a metrics tail)
};

// A file descriptor open for writing at path, or FileError (fone/io/json_files.h): "<path>: refused to write
// through a symbolic link" / "<path>: refused to write: not a regular file (a FIFO)" / "<path>: cannot
// <verb> (<errno>; <free space>)". WriteOpen::repair returns -1 when the file is missing.
int open_for_writing(const std::string& path, WriteOpen how);

// Refuses (FileError, as above) a path that exists as anything but a regular file: what an atomic rename
// would replace. A missing path is fine.
void check_write_target(const std::string& path);

// A new temporary file beside path ("<path>.tmp-<pid>", the name the run store's clean-up knows), created
// with O_EXCL|O_NOFOLLOW so that nothing planted under that name is written through (a leftover of that
// name is removed first: unlink never follows a link). Checks path with check_write_target first. Returns
// the descriptor; *tmp_path receives the name.
int create_temp_beside(const std::string& path, std::string* tmp_path);

}  // namespace fone
