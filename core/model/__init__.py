"""The small trained model: a stack of the block engine's blocks with character embeddings.

Pure NumPy at run time; the weights come from tools/train_model.py (PyTorch, optional).
"""
from .model import (DEFAULT_MODEL, Ablation, Cancelled, Model, ModelConfig, ModelError, ModelTrace, NeuronStats,
                    NO_ABLATION, Snippet, TextRun, Tokens, count_parameters, expected_weight_shapes,
                    ffn_ablation_losses, load_model, log_softmax, model_from_arrays, neuron_activations,
                    neuron_stats, random_neurons, softmax_row, top_snippets, validation_loss)

__all__ = [
    "DEFAULT_MODEL", "Ablation", "Cancelled", "Model", "ModelConfig", "ModelError", "ModelTrace", "NeuronStats",
    "NO_ABLATION", "Snippet", "TextRun", "Tokens", "count_parameters", "expected_weight_shapes",
    "ffn_ablation_losses", "load_model", "log_softmax", "model_from_arrays", "neuron_activations",
    "neuron_stats", "random_neurons", "softmax_row", "top_snippets", "validation_loss",
]
