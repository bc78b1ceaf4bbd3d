// numaplace's LLVM pass plugin (clang 14, new pass manager): every memory access of a program
// built by `numaplace cc` reported to the recording library (crates/record/recorder.c).
// docs/record.md, "How a program is built for it" and "Recording slowdown".
//
// Plain loads and stores (not atomic; ThreadSanitizer's pass turns atomics into __tsan_atomic*
// calls the library performs and counts) of up to 64 bytes get an inline fast path in front
// of the library's call: the thread's cache model (recorder.c, struct np_fast, in initial-exec
// TLS) is looked up in place, and an access to the line most recently used in its set — a load
// of it, or a store to it when it is already dirty — changes nothing in an LRU cache: it is only
// counted (loads, stores or wide_accesses) and the call is skipped. Every other access calls
// the library as before:
//
//   * loads and stores of 1, 2, 4, 8 and 16 bytes: __sanitizer_cov_load1..16 / store1..16 (the
//     names of clang's sanitizer-coverage callbacks, which this pass replaces);
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
// Volatile accesses, and every access in an innermost loop that flushes (an OpenMP `flush`, a fence),
// always call the library: those are the spin-waits the library recognises and yields in
// (docs/record.md, "spin_loads_collapsed"). Memory intrinsics (llvm.memcpy/memmove/memset) are
// left to ThreadSanitizer's pass, which turns them into calls the recording library interposes.
// The pass collects the instructions it instruments before inserting anything, so it never
// instruments its own loads and stores.
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include <set>

using namespace llvm;

namespace {

enum : uint64_t { F_WRITE = 1, F_PACKED = 2, F_CONT = 4 };

struct Numaplace : PassInfoMixin<Numaplace> {
    Module *M = nullptr;
    const DataLayout *DL = nullptr;
    Type *I8P = nullptr, *I64 = nullptr, *VoidT = nullptr;
    FunctionCallee Access, Masked, Lanes, Unseen;
    FunctionCallee Load[5], Store[5]; // __sanitizer_cov_load/store 1, 2, 4, 8, 16
    // recorder.c's struct np_fast: tags, set mask, ways, line shift, loads, stores, wide.
    enum { F_TAGS, F_SETMASK, F_WAYS, F_SHIFT, F_LOADS, F_STORES, F_WIDE, F_FIELDS };
    StructType *FastTy = nullptr;
    Constant *Fast = nullptr;
    // The smallest line the library accepts (recorder.c: NUMAPLACE_RECORD_CACHE's LINE >= 8):
    // an access of at most this many bytes, aligned to its size, never spans two lines.
    static constexpr uint64_t MIN_LINE = 8;
    // The widest access given a fast path (a 64-byte vector).
    static constexpr uint64_t FAST_MAX = 64;

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
        static const char *const sizes[5] = {"1", "2", "4", "8", "16"};
        for (int i = 0; i < 5; i++) {
            Load[i] = Mod.getOrInsertFunction(std::string("__sanitizer_cov_load") + sizes[i], nounwind, VoidT, I8P);
            Store[i] = Mod.getOrInsertFunction(std::string("__sanitizer_cov_store") + sizes[i], nounwind, VoidT, I8P);
        }
        FastTy = StructType::getTypeByName(C, "numaplace.fast");
        if (!FastTy) FastTy = StructType::create(C, SmallVector<Type *, F_FIELDS>(F_FIELDS, I64), "numaplace.fast");
        Fast = Mod.getOrInsertGlobal("__numaplace_fast", FastTy, [&] {
            auto *G = new GlobalVariable(Mod, FastTy, false, GlobalValue::ExternalLinkage, nullptr, "__numaplace_fast",
                                         nullptr, GlobalValue::InitialExecTLSModel);
            return G;
        });
    }

    static int sizeIndex(uint64_t s)
    {
        switch (s) {
        case 1: return 0;
        case 2: return 1;
        case 4: return 2;
        case 8: return 3;
        case 16: return 4;
        default: return -1;
        }
    }

    Value *field(IRBuilder<> &B, unsigned i) { return B.CreateConstInBoundsGEP2_32(FastTy, Fast, 0, i); }

    // A plain load or store of `size` bytes at `p`: the fast path (the line most recently used
    // in its set, already dirty for a store: only counted), else the library's call.
    void plain(Instruction &I, Value *p, uint64_t size, bool write, Align align, bool fast)
    {
        int si = sizeIndex(size);
        auto slow = [&](IRBuilder<> &B) {
            if (si >= 0)
                B.CreateCall(write ? Store[si] : Load[si], {ptr(B, p)});
            else
                B.CreateCall(Access, {ptr(B, p), k(size), k(write ? F_WRITE : 0)});
        };
        IRBuilder<> B(&I);
        if (!fast || size > FAST_MAX) {
            slow(B);
            return;
        }
        Value *a = B.CreatePtrToInt(p, I64);
        Value *tags = B.CreateLoad(I64, field(B, F_TAGS));
        Value *setmask = B.CreateLoad(I64, field(B, F_SETMASK));
        Value *ways = B.CreateLoad(I64, field(B, F_WAYS));
        Value *shift = B.CreateLoad(I64, field(B, F_SHIFT));
        Value *line = B.CreateLShr(a, shift);
        Value *way0 = B.CreateShl(B.CreateMul(B.CreateAnd(line, setmask), ways), 3);
        Value *w = B.CreateLoad(I64, B.CreateIntToPtr(B.CreateAdd(tags, way0), I64->getPointerTo()));
        // A way holds (line + 1) << 1 | dirty: never odd after the shift, so an access that
        // may span two lines sets bit 0 of the key when it does, and then never matches.
        Value *key = B.CreateShl(B.CreateAdd(line, k(1)), 1);
        if (!(size <= MIN_LINE && align.value() >= size)) {
            Value *last = B.CreateLShr(B.CreateAdd(a, k(size - 1)), shift);
            key = B.CreateOr(key, B.CreateZExt(B.CreateICmpNE(last, line), I64));
        }
        Value *hit = write ? B.CreateICmpEQ(B.CreateXor(w, k(1)), key) : B.CreateICmpEQ(B.CreateAnd(w, k(~1ULL)), key);
        Instruction *thenT = nullptr, *elseT = nullptr;
        SplitBlockAndInsertIfThenElse(hit, &I, &thenT, &elseT, MDBuilder(M->getContext()).createBranchWeights(1000, 1));
        IRBuilder<> T(thenT);
        Value *counter = field(T, si < 0 ? F_WIDE : write ? F_STORES : F_LOADS);
        T.CreateStore(T.CreateAdd(T.CreateLoad(I64, counter), k(1)), counter);
        IRBuilder<> E(elseT);
        slow(E);
    }

    // Instructions in innermost loops that flush (an OpenMP flush, a fence): spin-waits, never
    // given the fast path, so that the library sees every load of them. (Innermost: NPB LU's
    // pipelined sweep flushes in its outer loop too, around the whole computation.)
    static void spinLoops(LoopInfo &LI, std::set<Instruction *> &out)
    {
        for (Loop *L : LI.getLoopsInPreorder()) {
            if (!L->getSubLoops().empty()) continue;
            bool flushes = false;
            for (BasicBlock *BB : L->blocks())
                for (Instruction &I : *BB) {
                    if (isa<FenceInst>(I)) flushes = true;
                    if (auto *CI = dyn_cast<CallInst>(&I))
                        if (Function *F = CI->getCalledFunction())
                            if (F->getName() == "__kmpc_flush" || F->getName() == "__tsan_atomic_thread_fence")
                                flushes = true;
                }
            if (!flushes) continue;
            for (BasicBlock *BB : L->blocks())
                for (Instruction &I : *BB)
                    if (isa<LoadInst>(I) || isa<StoreInst>(I)) out.insert(&I);
        }
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

    // Instruments one instruction; returns whether it did. `spin`: it is in a loop that flushes.
    bool visit(Instruction &I, bool spin)
    {
        if (auto *L = dyn_cast<LoadInst>(&I)) {
            TypeSize s = DL->getTypeStoreSize(L->getType());
            if (s.isScalable() || s == 0 || L->isAtomic() || L->getPointerAddressSpace() != 0 ||
                L->getPointerOperand()->isSwiftError())
                return false;
            plain(I, L->getPointerOperand(), s.getFixedSize(), false, L->getAlign(), !spin && !L->isVolatile());
            return true;
        }
        if (auto *S = dyn_cast<StoreInst>(&I)) {
            TypeSize s = DL->getTypeStoreSize(S->getValueOperand()->getType());
            if (s.isScalable() || s == 0 || S->isAtomic() || S->getPointerAddressSpace() != 0 ||
                S->getPointerOperand()->isSwiftError())
                return false;
            plain(I, S->getPointerOperand(), s.getFixedSize(), true, S->getAlign(), !spin && !S->isVolatile());
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

    PreservedAnalyses run(Module &Mod, ModuleAnalysisManager &MAM)
    {
        declare(Mod);
        auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(Mod).getManager();
        bool changed = false;
        for (Function &Fn : Mod) {
            if (Fn.isDeclaration() || Fn.hasFnAttribute(Attribute::Naked) ||
                Fn.hasFnAttribute(Attribute::NoSanitizeCoverage) || Fn.getName().startswith("__numaplace_") ||
                Fn.getName().startswith("__sanitizer_"))
                continue;
            std::set<Instruction *> spin;
            spinLoops(FAM.getResult<LoopAnalysis>(Fn), spin);
            SmallVector<Instruction *, 64> work; // collected first: the pass never sees its own code
            for (Instruction &I : instructions(Fn))
                if (isa<LoadInst>(I) || isa<StoreInst>(I) || isa<CallInst>(I)) work.push_back(&I);
            bool fnChanged = false;
            for (Instruction *I : work) fnChanged |= visit(*I, spin.count(I) != 0);
            if (fnChanged) FAM.invalidate(Fn, PreservedAnalyses::none());
            changed |= fnChanged;
        }
        return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
    }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return {LLVM_PLUGIN_API_VERSION, "numaplace", "1", [](PassBuilder &PB) {
                // OptimizerLast: after vectorisation (the widths the program really uses); also
                // part of clang's -O0 pipeline, beside ThreadSanitizer's pass.
                PB.registerOptimizerLastEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(Numaplace()); });
            }};
}
