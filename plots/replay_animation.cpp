// Animated GIF through giflib (replay_animation.h).
#include "replay_animation.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "fone/io/file_write.h"

#ifdef FONE_WITH_GIF
#include <gif_lib.h>
#endif

namespace fone::plots {

bool gif_supported() {
#ifdef FONE_WITH_GIF
    return true;
#else
    return false;
#endif
}

#ifdef FONE_WITH_GIF
namespace {

[[noreturn]] void gif_failed(const std::string& path, int error) {
    const char* text = GifErrorString(error);
    throw std::runtime_error("cannot write " + path + ": " +
                             (text ? text : "giflib error " + std::to_string(error)));
}

// Loop forever: the NETSCAPE2.0 application extension.
void put_loop(GifFileType* gif, const std::string& path) {
    static const unsigned char kApp[] = "NETSCAPE2.0";
    static const unsigned char kLoop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, 11, kApp) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, 3, kLoop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
        gif_failed(path, gif->Error);
}

void put_frame(GifFileType* gif, const QImage& frame, int delay, const std::string& path) {
    const QImage rgb = frame.convertToFormat(QImage::Format_RGB888);
    const int w = rgb.width(), h = rgb.height();
    std::vector<GifByteType> r(static_cast<std::size_t>(w) * h), g(r.size()), b(r.size()), indices(r.size());
    for (int y = 0; y < h; ++y) {
        const uchar* line = rgb.constScanLine(y);
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            r[i] = line[3 * x], g[i] = line[3 * x + 1], b[i] = line[3 * x + 2];
        }
    }
    int colours = 256;
    std::vector<GifColorType> palette(256);
    if (GifQuantizeBuffer(w, h, &colours, r.data(), g.data(), b.data(), indices.data(), palette.data()) ==
        GIF_ERROR)
        throw std::runtime_error("cannot write " + path + ": colour quantisation failed");
    ColorMapObject* map = GifMakeMapObject(256, palette.data());
    GraphicsControlBlock control{DISPOSAL_UNSPECIFIED, false, delay, NO_TRANSPARENT_COLOR};
    GifByteType extension[4];
    EGifGCBToExtension(&control, extension);
    const bool ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, extension) != GIF_ERROR &&
                    EGifPutImageDesc(gif, 0, 0, w, h, false, map) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) gif_failed(path, gif->Error);
    for (int y = 0; y < h; ++y)
        if (EGifPutLine(gif, indices.data() + static_cast<std::size_t>(y) * w, w) == GIF_ERROR)
            gif_failed(path, gif->Error);
}

}  // namespace
#endif

void write_gif(const std::vector<QImage>& frames, const std::string& path, int delay_centiseconds) {
#ifdef FONE_WITH_GIF
    if (frames.empty()) throw std::runtime_error("cannot write " + path + ": no frames");
    for (const QImage& f : frames)
        if (f.size() != frames.front().size())
            throw std::runtime_error("cannot write " + path + ": the frames differ in size");
    // The temporary is made by the one writer's rules (fone/io/file_write.h): a link or special file at
    // path, or planted under the temporary's name, is refused or removed, never written through.
    std::string tmp;
    const int fd = create_temp_beside(path, &tmp);
    int error = 0;
    GifFileType* gif = EGifOpenFileHandle(fd, &error);  // giflib closes fd
    if (!gif) {
        ::close(fd);
        std::filesystem::remove(tmp);
        gif_failed(path, error);
    }
    try {
        EGifSetGifVersion(gif, true);
        if (EGifPutScreenDesc(gif, frames.front().width(), frames.front().height(), 8, 0, nullptr) ==
            GIF_ERROR)
            gif_failed(path, gif->Error);
        put_loop(gif, path);
        for (const QImage& f : frames)
            put_frame(gif, f, delay_centiseconds, path);
    } catch (...) {
        EGifCloseFile(gif, &error);
        std::filesystem::remove(tmp);
        throw;
    }
    if (EGifCloseFile(gif, &error) == GIF_ERROR) gif_failed(path, error);
    // giflib creates the file owner-only (0600); an exported picture is for sharing, like the PNGs (0644).
    namespace fs = std::filesystem;
    fs::permissions(
        tmp, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    fs::rename(tmp, path);
#else
    (void)frames, (void)delay_centiseconds;
    throw std::runtime_error(
        "cannot write " + path +
        ": this build has no GIF encoder (giflib); apt-get install libgif-dev and rebuild "
        "(the PNG frames are written without it)");
#endif
}

}  // namespace fone::plots
