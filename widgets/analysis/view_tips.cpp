#include "view_tips.h"

namespace fone::gui::tips {

const char* const kPeriod =
    "A period T: FoNE writes a number x as the point (cos 2πx/T, sin 2πx/T) on a circle, one circle per "
    "period T = 10, 100, 1000, … The point turns once every T, so its angle is (x mod T)/T of a full turn.";
const char* const kSlots =
    "Digit slots: m integer and n fractional digits, one (cos, sin) pair each. 'auto' takes just enough "
    "for the number.";
const char* const kBase =
    "The base of the periods: T = base^i. Base 10 gives one circle per decimal digit; other bases read the "
    "number's digits in that base.";
const char* const kRun =
    "A trained run of the store (only runs with a saved model are listed). '…' opens any run directory, "
    "e.g. a model exported with `fone export`.";
const char* const kSource =
    "Where the representation of each number comes from: the FoNE encoder itself (no model: the "
    "reference), a trained run (its hidden state at the number token for FoNE runs, or the number "
    "tokens' embedding rows for digit-wise and subword runs), or a downloaded model folder (Llama, Qwen2, "
    "GPT-2, Pythia: the hidden state at the number's last token, layer 0 its embedding).";
const char* const kSpectrum =
    "The discrete Fourier transform along the number axis: each dimension of the representation as a "
    "signal over the numbers 0, 1, 2, … A spike at frequency k means a pattern repeating every T = N/k "
    "numbers: FoNE's pairs give spikes exactly at T = 10, 100, 1000.";
const char* const kProbe =
    "A linear probe: can x mod T be read from the representation by a linear map? Fitted on 75% of the "
    "numbers, scored on the rest. A spike shows a period is present; the probe shows it is readable.";

}  // namespace fone::gui::tips
