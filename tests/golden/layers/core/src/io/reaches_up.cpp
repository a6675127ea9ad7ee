// A fixture for check_layers_catches: io/ is the ground floor, so this include of the run store is a
// violation the layer check must report.
#include "fone/store/run_store.h"
