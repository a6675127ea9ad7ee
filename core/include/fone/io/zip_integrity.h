// Integrity of a zip archive (a LibTorch checkpoint is one: PyTorch's stream writer stores every record
// uncompressed with its CRC-32). Private to core.
//
// LibTorch 1.13 does not check the CRCs when it reads, and a damaged archive can crash it (a bit flip in the
// TorchScript source it holds reaches its type parser: fuzz_checkpoint found a SEGV there). Checking every
// record's CRC-32 first turns accidental damage (a bad disk, a truncated copy, a flipped bit) into a clear
// error with certainty short of a 1 in 2^32 collision. A file crafted with consistent CRCs is not caught.
#pragma once

#include <string>

namespace fone::detail {

// "" when every record of the zip at path is whole (its CRC-32 matches, its data lies inside the file,
// stored or deflated), else what is wrong ("not a zip archive", "record 'x/data/3' fails its CRC-32", ...).
std::string zip_problem(const std::string& path);

}  // namespace fone::detail
