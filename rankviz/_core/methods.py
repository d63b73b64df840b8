"""Methods made from module functions: the accessors' one way of binding a frame to a public function."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast, overload

__all__ = ["bound_method", "BoundMethod"]

P = ParamSpec("P")
R_co = TypeVar("R_co", covariant=True)


class BoundMethod(Protocol[P, R_co]):
    """What static tools see of a method made by :func:`bound_method`: on an instance, the function without
    its first parameter (``df.rank.mrr(qrels, k=10)`` is checked against ``rankviz.mrr(run, qrels, k=10)``)."""

    @overload
    def __get__(self, obj: None, cls: Any = None) -> Callable[..., R_co]: ...

    @overload
    def __get__(self, obj: object, cls: Any = None) -> Callable[P, R_co]: ...


def bound_method(
    func: Callable[Concatenate[Any, P], R_co], owner: str, name: str | None = None
) -> BoundMethod[P, R_co]:
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
    return cast(BoundMethod[P, R_co], method)  # a function: Python binds it to the accessor
