"""Methods made from module functions: the accessors' one way of binding a frame to a public function."""

from __future__ import annotations

import inspect

__all__ = ["bound_method"]


def bound_method(func, owner: str, name: str | None = None):
    """A method that calls ``func(self._frame, ...)``, with ``func``'s signature (minus the frame) and docstring.

    ``owner`` is the class name shown in the method's qualified name (``RankAccessor.mrr``), so ``help()``
    and Shift-Tab show the function's own parameters under the accessor's name.
    """

    def method(self, *args, **kwargs):
        return func(self._frame, *args, **kwargs)

    signature = inspect.signature(func)
    params = list(signature.parameters.values())
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = signature.replace(parameters=[self_param, *params[1:]])  # type: ignore[attr-defined]
    method.__name__ = name or func.__name__
    method.__qualname__ = f"{owner}.{method.__name__}"
    method.__doc__ = func.__doc__
    return method
