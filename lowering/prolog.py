"""Conversions of the MLA prolog ops (seeds 001 and 000)."""
from __future__ import annotations

from ..dialect.aclnn_functions import MLA_PROLOG, MLA_PROLOG_V2
from ..dialect.prolog import Prolog, PrologV2
from ..dialect.types import describe_type
from .lower_to_aclnn import lowers


@lowers(Prolog)
def prolog(op, b):
    return b.call_bound(MLA_PROLOG)


@lowers(PrologV2)
def prolog_v2(op, b):
    # The kernel writes dequantScaleQNopeOut only when it quantizes the query (FQ-KVQ: an int8
    # query); otherwise the argument is nullptr and the result is the zeros the CPU kernel gives.
    quantized_query = describe_type(b.adaptor.query.type).dtype == "i8"
    absent = () if quantized_query else ("dequantScaleQNopeOutOptional",)
    return b.call_bound(MLA_PROLOG_V2, absent_outputs=absent)
