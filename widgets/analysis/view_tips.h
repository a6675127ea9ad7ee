// Tooltip texts shared by several analysis views: FoNE's terms for a newcomer.
#pragma once

namespace fone::gui::tips {

extern const char* const kPeriod;
extern const char* const kSlots;
extern const char* const kBase;
extern const char* const kRun;
extern const char* const kSource;
extern const char* const kSpectrum;
extern const char* const kProbe;

}  // namespace fone::gui::tips
