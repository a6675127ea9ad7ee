// What packing and unpacking a .fonerun share (private to store/): SHA-256 through OpenSSL, and the
// libarchive handles' owners.
#pragma once

#include <archive.h>
#include <openssl/evp.h>

#include <cstddef>
#include <memory>
#include <string>

#include "fone/store/run_store.h"

namespace fone::detail {

// SHA-256 through OpenSSL's EVP interface.
class Sha256 {
  public:
    Sha256() : ctx_(EVP_MD_CTX_new()) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
            throw RunError("SHA-256 is not available (OpenSSL)");
    }
    ~Sha256() { EVP_MD_CTX_free(ctx_); }
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx_, data, n); }
    // The digest as 64 lowercase hex digits (once: the context is finished).
    std::string hex() {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        EVP_DigestFinal_ex(ctx_, md, &len);
        static const char* digits = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < len; ++i) {
            out += digits[md[i] >> 4];
            out += digits[md[i] & 15];
        }
        return out;
    }

  private:
    EVP_MD_CTX* ctx_;
};

struct ArchiveReadFree {
    void operator()(archive* a) const { archive_read_free(a); }
};
struct ArchiveWriteFree {
    void operator()(archive* a) const { archive_write_free(a); }
};
using ReadArchive = std::unique_ptr<archive, ArchiveReadFree>;
using WriteArchive = std::unique_ptr<archive, ArchiveWriteFree>;

// Blocks of this size are read and written.
inline constexpr std::size_t kPackBlock = 256 * 1024;

}  // namespace fone::detail
