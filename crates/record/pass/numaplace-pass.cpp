// numaplace's LLVM pass plugin (clang 14, new pass manager): the accesses clang's sanitizer
// coverage (-fsanitize-coverage=trace-loads,trace-stores) does not report, reported to the
// recording library (crates/record/recorder.c). docs/record.md, "How a program is built for it".
//
// Sanitizer coverage reports loads and stores whose store size is 1, 2, 4, 8 or 16 bytes. This
// pass instruments exactly the rest:
//
//   * loads and stores of any other store size (32- and 64-byte vectors, x87 long double (10
//     bytes), odd vectors and first-class aggregates): __numaplace_access(p, size, write);
//   * llvm.masked.load/store, llvm.x86.avx{,2}.maskload/maskstore, llvm.x86.sse2.maskmov.dqu:
//     each active lane, __numaplace_masked(p, lane size, lane mask, flags);
//   * llvm.masked.expandload/compressstore: the popcount(mask) consecutive elements they touch,
//     __numaplace_masked(..., packed);
//   * llvm.masked.gather/scatter, llvm.vp.gather/scatter, x86 AVX2/AVX-512 gathers and scatters:
//     each active lane's pointer, 4 lanes a call, __numaplace_lanes(mask, info, p0, p1, p2, p3);
//   * llvm.vp.load/store: the active lanes below the explicit vector length;
//   * llvm.x86.sse3.ldu.dq, llvm.x86.avx.ldu.dq.256 (lddqu): one 16/32-byte load;
//   * any other intrinsic that may touch memory through a pointer argument and is not known to
//     touch no program data: counted, not seen (__numaplace_unseen, the `unseen_intrinsics`
//     counter).
//
// The sets are disjoint from sanitizer coverage's (by store size, and it ignores calls), and the
// code this pass inserts has no load or store, so the order of the two passes at OptimizerLast
// cannot count an access twice. Memory intrinsics (llvm.memcpy/memmove/memset) are left to
// ThreadSanitizer's pass, which turns them into calls the recording library interposes;
// atomics (1..16 bytes) to sanitizer coverage and ThreadSanitizer's pass.
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace {

enum : uint64_t { F_WRITE = 1, F_PACKED = 2, F_CONT = 4 };

struct Numaplace : PassInfoMixin<Numaplace> {
    Module *M = nullptr;
    const DataLayout *DL = nullptr;
    Type *I8P = nullptr, *I64 = nullptr, *VoidT = nullptr;
    FunctionCallee Access, Masked, Lanes, Unseen;

    void declare(Module &Mod)
    {
        M = &Mod;
        DL = &Mod.getDataLayout();
        LLVMContext &C = Mod.getContext();
        I8P = Type::getInt8PtrTy(C);
        I64 = Type::getInt64Ty(C);
        VoidT = Type::getVoidTy(C);
        AttributeList nounwind = AttributeList().addFnAttribute(C, Attribute::NoUnwind);
        Access = Mod.getOrInsertFunction("__numaplace_access", nounwind, VoidT, I8P, I64, I64);
        Masked = Mod.getOrInsertFunction("__numaplace_masked", nounwind, VoidT, I8P, I64, I64, I64);
        Lanes = Mod.getOrInsertFunction("__numaplace_lanes", nounwind, VoidT, I64, I64, I8P, I8P, I8P, I8P);
        Unseen = Mod.getOrInsertFunction("__numaplace_unseen", nounwind, VoidT);
    }

    Value *ptr(IRBuilder<> &B, Value *p) { return B.CreatePointerCast(p, I8P); }
    Constant *k(uint64_t v) { return ConstantInt::get(I64, v); }

    static unsigned lanesOf(Type *T) { return cast<FixedVectorType>(T)->getNumElements(); }

    // The mask as <lanes x i1>: an i1 vector as it is; an integer or floating-point vector by
    // its lanes' sign bits (x86 maskload/maskstore, AVX2 gathers); an integer by its low bits
    // (AVX-512's older gathers and scatters).
    Value *boolMask(IRBuilder<> &B, Value *mask, unsigned lanes)
    {
        Type *T = mask->getType();
        LLVMContext &C = M->getContext();
        if (auto *VT = dyn_cast<FixedVectorType>(T)) {
            Type *E = VT->getElementType();
            Value *v = mask;
            if (!E->isIntegerTy(1)) {
                if (E->isFloatingPointTy())
                    v = B.CreateBitCast(v, FixedVectorType::get(B.getIntNTy(E->getPrimitiveSizeInBits()), VT->getNumElements()));
                v = B.CreateICmpSLT(v, Constant::getNullValue(v->getType()));
            }
            if (VT->getNumElements() != lanes) {
                SmallVector<int, 64> idx;
                for (unsigned i = 0; i < lanes; i++) idx.push_back(i < VT->getNumElements() ? (int)i : -1);
                v = B.CreateShuffleVector(v, idx);
                if (lanes > VT->getNumElements()) // lanes beyond the mask: inactive
                    v = B.CreateAnd(v, lowLanes(C, lanes, VT->getNumElements()));
            }
            return v;
        }
        // An integer mask: bit i is lane i.
        Value *bits = B.CreateZExtOrTrunc(mask, B.getIntNTy(lanes));
        return B.CreateBitCast(bits, FixedVectorType::get(Type::getInt1Ty(C), lanes));
    }

    static Constant *lowLanes(LLVMContext &C, unsigned lanes, unsigned on)
    {
        SmallVector<Constant *, 64> v;
        for (unsigned i = 0; i < lanes; i++) v.push_back(ConstantInt::get(Type::getInt1Ty(C), i < on));
        return ConstantVector::get(v);
    }

    // Lanes [start, start + count) of a <N x i1> as an i64 bit mask (count <= 64).
    Value *bits(IRBuilder<> &B, Value *boolvec, unsigned start, unsigned count)
    {
        Value *v = boolvec;
        if (start != 0 || count != lanesOf(boolvec->getType())) {
            SmallVector<int, 64> idx;
            for (unsigned i = 0; i < count; i++) idx.push_back(start + i);
            v = B.CreateShuffleVector(v, idx);
        }
        return B.CreateZExt(B.CreateBitCast(v, B.getIntNTy(count)), I64);
    }

    // Contiguous lanes: lane i at p + i * esize, active when its mask bit is set.
    void masked(IRBuilder<> &B, Value *p, uint64_t esize, Value *boolvec, uint64_t flags)
    {
        unsigned n = lanesOf(boolvec->getType());
        Value *base = ptr(B, p);
        for (unsigned s = 0; s < n; s += 64) {
            unsigned c = n - s < 64 ? n - s : 64;
            Value *q = s ? B.CreateConstGEP1_64(B.getInt8Ty(), base, s * esize) : base;
            // packed (expand/compress): the chunks follow each other only through the popcount
            // of the earlier ones; more than 64 packed lanes never occur on x86 (counted as a
            // span from the start for the rest).
            B.CreateCall(Masked, {q, k(esize), bits(B, boolvec, s, c), k(flags | (s ? F_CONT : 0))});
        }
    }

    // Lanes with their own pointers (gathers, scatters), 4 a call.
    void lanes(IRBuilder<> &B, ArrayRef<Value *> ptrs, uint64_t esize, Value *boolvec, uint64_t flags)
    {
        unsigned n = ptrs.size();
        Value *null = ConstantPointerNull::get(cast<PointerType>(I8P));
        for (unsigned s = 0; s < n; s += 4) {
            unsigned c = n - s < 4 ? n - s : 4;
            Value *p[4] = {null, null, null, null};
            for (unsigned j = 0; j < c; j++) p[j] = ptrs[s + j];
            B.CreateCall(Lanes, {bits(B, boolvec, s, c), k(esize << 3 | flags | (s ? F_CONT : 0)), p[0], p[1], p[2], p[3]});
        }
    }

    SmallVector<Value *, 64> vectorPtrs(IRBuilder<> &B, Value *pv)
    {
        SmallVector<Value *, 64> out;
        for (unsigned i = 0, n = lanesOf(pv->getType()); i < n; i++)
            out.push_back(ptr(B, B.CreateExtractElement(pv, (uint64_t)i)));
        return out;
    }

    // x86 gathers and scatters: lane i at base + sext(index[i]) * scale, `lanes` lanes.
    SmallVector<Value *, 64> indexedPtrs(IRBuilder<> &B, Value *base, Value *index, Value *scale, unsigned n)
    {
        SmallVector<Value *, 64> out;
        Value *b = ptr(B, base);
        Value *sc = B.CreateSExtOrTrunc(scale, I64);
        for (unsigned i = 0; i < n; i++) {
            Value *ix = B.CreateSExtOrTrunc(B.CreateExtractElement(index, (uint64_t)i), I64);
            out.push_back(B.CreateGEP(B.getInt8Ty(), b, B.CreateMul(ix, sc)));
        }
        return out;
    }

    uint64_t elemSize(Type *T)
    {
        if (auto *VT = dyn_cast<VectorType>(T)) T = VT->getElementType();
        return DL->getTypeStoreSize(T).getFixedSize();
    }

    static bool fixedVec(Type *T) { return isa<FixedVectorType>(T); }

    // Intrinsics known to touch no program data (or handled elsewhere).
    static bool harmless(StringRef n)
    {
        static const char *const prefixes[] = {
            "llvm.dbg.", "llvm.lifetime.", "llvm.invariant.", "llvm.launder.invariant.group",
            "llvm.strip.invariant.group", "llvm.prefetch", "llvm.var.annotation", "llvm.ptr.annotation",
            "llvm.annotation", "llvm.stacksave", "llvm.stackrestore", "llvm.va_", "llvm.memcpy", "llvm.memmove",
            "llvm.memset", "llvm.objectsize", "llvm.assume", "llvm.experimental.noalias.scope.decl",
            "llvm.x86.sse2.clflush", "llvm.x86.clflushopt", "llvm.x86.clwb", "llvm.x86.avx512.gatherpf",
            "llvm.x86.avx512.scatterpf", "llvm.x86.sse.ldmxcsr", "llvm.x86.sse.stmxcsr", "llvm.eh.",
            "llvm.frameaddress", "llvm.returnaddress", "llvm.sponentry", "llvm.localescape", "llvm.localrecover",
            "llvm.stackprotector", "llvm.stackguard", "llvm.coro.", "llvm.threadlocal.address",
            "llvm.is.constant", "llvm.expect", "llvm.trap", "llvm.debugtrap", "llvm.donothing",
            "llvm.experimental.stackmap", "llvm.experimental.patchpoint", "llvm.experimental.gc.",
            "llvm.instrprof.", "llvm.pseudoprobe", "llvm.icall.branch.funnel", "llvm.type.", "llvm.public.type.",
        };
        for (const char *p : prefixes)
            if (n.startswith(p)) return true;
        return false;
    }

    // Instruments one instruction; returns whether it did.
    bool visit(Instruction &I)
    {
        if (auto *L = dyn_cast<LoadInst>(&I)) {
            TypeSize s = DL->getTypeStoreSize(L->getType());
            if (s.isScalable() || s == 1 || s == 2 || s == 4 || s == 8 || s == 16 || s == 0) return false;
            IRBuilder<> B(&I);
            B.CreateCall(Access, {ptr(B, L->getPointerOperand()), k(s.getFixedSize()), k(0)});
            return true;
        }
        if (auto *S = dyn_cast<StoreInst>(&I)) {
            TypeSize s = DL->getTypeStoreSize(S->getValueOperand()->getType());
            if (s.isScalable() || s == 1 || s == 2 || s == 4 || s == 8 || s == 16 || s == 0) return false;
            IRBuilder<> B(&I);
            B.CreateCall(Access, {ptr(B, S->getPointerOperand()), k(s.getFixedSize()), k(F_WRITE)});
            return true;
        }
        auto *CI = dyn_cast<CallInst>(&I);
        Function *F = CI ? CI->getCalledFunction() : nullptr;
        if (!F || !F->getName().startswith("llvm.")) return false;
        StringRef name = F->getName();
        IRBuilder<> B(&I);
        auto arg = [&](unsigned i) { return CI->getArgOperand(i); };
        switch (F->getIntrinsicID()) {
        case Intrinsic::masked_load: // (ptr, align, mask, passthru)
            if (!fixedVec(CI->getType())) break;
            masked(B, arg(0), elemSize(CI->getType()), boolMask(B, arg(2), lanesOf(CI->getType())), 0);
            return true;
        case Intrinsic::masked_store: // (value, ptr, align, mask)
            if (!fixedVec(arg(0)->getType())) break;
            masked(B, arg(1), elemSize(arg(0)->getType()), boolMask(B, arg(3), lanesOf(arg(0)->getType())), F_WRITE);
            return true;
        case Intrinsic::masked_expandload: // (ptr, mask, passthru)
            if (!fixedVec(CI->getType())) break;
            masked(B, arg(0), elemSize(CI->getType()), boolMask(B, arg(1), lanesOf(CI->getType())), F_PACKED);
            return true;
        case Intrinsic::masked_compressstore: // (value, ptr, mask)
            if (!fixedVec(arg(0)->getType())) break;
            masked(B, arg(1), elemSize(arg(0)->getType()), boolMask(B, arg(2), lanesOf(arg(0)->getType())),
                   F_PACKED | F_WRITE);
            return true;
        case Intrinsic::masked_gather: // (ptrs, align, mask, passthru)
            if (!fixedVec(arg(0)->getType())) break;
            lanes(B, vectorPtrs(B, arg(0)), elemSize(CI->getType()), boolMask(B, arg(2), lanesOf(arg(0)->getType())), 0);
            return true;
        case Intrinsic::masked_scatter: // (value, ptrs, align, mask)
            if (!fixedVec(arg(1)->getType())) break;
            lanes(B, vectorPtrs(B, arg(1)), elemSize(arg(0)->getType()), boolMask(B, arg(3), lanesOf(arg(1)->getType())),
                  F_WRITE);
            return true;
        case Intrinsic::vp_load:   // (ptr, mask, evl)
        case Intrinsic::vp_store:  // (value, ptr, mask, evl)
        case Intrinsic::vp_gather: // (ptrs, mask, evl)
        case Intrinsic::vp_scatter: { // (value, ptrs, mask, evl)
            bool st = F->getIntrinsicID() == Intrinsic::vp_store || F->getIntrinsicID() == Intrinsic::vp_scatter;
            unsigned o = st ? 1 : 0;
            Type *VT = st ? arg(0)->getType() : CI->getType();
            if (!fixedVec(VT)) break;
            unsigned n = lanesOf(VT);
            // Lanes at or beyond the explicit vector length are inactive.
            Value *evl = B.CreateZExtOrTrunc(arg(o + 2), B.getInt32Ty());
            SmallVector<Constant *, 64> iota;
            for (unsigned i = 0; i < n; i++) iota.push_back(B.getInt32(i));
            Value *below = B.CreateICmpULT(ConstantVector::get(iota), B.CreateVectorSplat(n, evl));
            Value *m = B.CreateAnd(boolMask(B, arg(o + 1), n), below);
            uint64_t fl = st ? F_WRITE : 0;
            if (F->getIntrinsicID() == Intrinsic::vp_load || F->getIntrinsicID() == Intrinsic::vp_store)
                masked(B, arg(o), elemSize(VT), m, fl);
            else
                lanes(B, vectorPtrs(B, arg(o)), elemSize(VT), m, fl);
            return true;
        }
        default:
            break;
        }
        if (name.startswith("llvm.x86.avx.maskload.") || name.startswith("llvm.x86.avx2.maskload.")) { // (ptr, mask)
            masked(B, arg(0), elemSize(CI->getType()), boolMask(B, arg(1), lanesOf(CI->getType())), 0);
            return true;
        }
        if (name.startswith("llvm.x86.avx.maskstore.") || name.startswith("llvm.x86.avx2.maskstore.")) { // (ptr, mask, value)
            masked(B, arg(0), elemSize(arg(2)->getType()), boolMask(B, arg(1), lanesOf(arg(2)->getType())), F_WRITE);
            return true;
        }
        if (name == "llvm.x86.sse2.maskmov.dqu") { // (value <16 x i8>, mask <16 x i8>, ptr)
            masked(B, arg(2), 1, boolMask(B, arg(1), 16), F_WRITE);
            return true;
        }
        if (name == "llvm.x86.sse3.ldu.dq" || name == "llvm.x86.avx.ldu.dq.256") { // (ptr)
            B.CreateCall(Access, {ptr(B, arg(0)), k(DL->getTypeStoreSize(CI->getType()).getFixedSize()), k(0)});
            return true;
        }
        if (name.startswith("llvm.x86.avx2.gather.") ||
            (name.startswith("llvm.x86.avx512.") && name.contains("gather") && !name.contains("gatherpf"))) {
            // (src, base, index, mask, scale): as many lanes as both the index and the result have
            unsigned n = std::min(lanesOf(CI->getType()), lanesOf(arg(2)->getType()));
            lanes(B, indexedPtrs(B, arg(1), arg(2), arg(4), n), elemSize(CI->getType()), boolMask(B, arg(3), n), 0);
            return true;
        }
        if (name.startswith("llvm.x86.avx512.") && name.contains("scatter") && !name.contains("scatterpf")) {
            // (base, mask, index, value, scale)
            unsigned n = std::min(lanesOf(arg(3)->getType()), lanesOf(arg(2)->getType()));
            lanes(B, indexedPtrs(B, arg(0), arg(2), arg(4), n), elemSize(arg(3)->getType()), boolMask(B, arg(1), n),
                  F_WRITE);
            return true;
        }
        // Anything else that may touch memory through a pointer: counted, not seen.
        if (harmless(name) || !CI->mayReadOrWriteMemory()) return false;
        bool pointerArg = false;
        for (Value *a : CI->args()) {
            Type *T = a->getType();
            if (auto *VT = dyn_cast<VectorType>(T)) T = VT->getElementType();
            pointerArg |= T->isPointerTy();
        }
        if (!pointerArg) return false;
        B.CreateCall(Unseen, {});
        return true;
    }

    PreservedAnalyses run(Module &Mod, ModuleAnalysisManager &)
    {
        declare(Mod);
        bool changed = false;
        for (Function &Fn : Mod) {
            if (Fn.isDeclaration() || Fn.hasFnAttribute(Attribute::Naked) ||
                Fn.hasFnAttribute(Attribute::NoSanitizeCoverage) || Fn.getName().startswith("__numaplace_") ||
                Fn.getName().startswith("__sanitizer_"))
                continue;
            SmallVector<Instruction *, 64> work; // collected first: the pass never sees its own code
            for (Instruction &I : instructions(Fn))
                if (isa<LoadInst>(I) || isa<StoreInst>(I) || isa<CallInst>(I)) work.push_back(&I);
            for (Instruction *I : work) changed |= visit(*I);
        }
        return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
    }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "numaplace", "1", [](PassBuilder &PB) {
                // OptimizerLast: after vectorisation (the widths the program really uses); also
                // part of clang's -O0 pipeline, where sanitizer coverage runs at the same point.
                PB.registerOptimizerLastEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(Numaplace()); });
            }};
}
