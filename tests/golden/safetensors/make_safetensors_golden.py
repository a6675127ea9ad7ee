#!/usr/bin/env python3
"""Writes reference.safetensors with Hugging Face's own `safetensors` package (pip install safetensors numpy),
the independent reference that tests/test_safetensors.cpp reads. Run once; the file is committed."""
import os

import numpy as np
from safetensors.numpy import save_file

here = os.path.dirname(os.path.abspath(__file__))
tensors = {
    "weight": (np.arange(6, dtype=np.float32) * 0.5 - 1).reshape(2, 3),
    "ids": np.array([3, 1, 4, -7], dtype=np.int64),
    "half": np.ones(5, dtype=np.float16),
    "flag": np.array([True, False, True]),
}
save_file(tensors, os.path.join(here, "reference.safetensors"), metadata={"made_by": "safetensors.numpy.save_file"})
