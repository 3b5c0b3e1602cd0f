"""The prompt editor and what feeds it: input routing, completion, pastes, images, the kill ring
and an extension's replacement editor.
"""
