// codegen.h: the C program of a planned IR, over the standard BSPlib API
// (docs/compiler.md). The prelude of every generated program is
// src/codegen/rt/*.c, embedded as text.
#ifndef VECBSP_CODEGEN_H
#define VECBSP_CODEGEN_H

#include "ir/ir.h"

// The C program that runs ir as its plan says (malloc'ed text).
char *codegen_program(IrProgram *ir);

#endif
