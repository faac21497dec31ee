// codegen.h: the C program of a planned IR, over the standard BSPlib API
// (docs/compiler.md). The prelude of every generated program is
// src/codegen/rt/*.c, embedded as text.
#ifndef VECBSP_CODEGEN_H
#define VECBSP_CODEGEN_H

#include "ir/ir.h"

// The C program that runs ir as the plan pl says (malloc'ed text). It is
// correct at any number of processes; pl->p is what it was planned for.
char *codegen_program(IrProgram *ir, const Plan *pl);

#endif
