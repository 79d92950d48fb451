/**
 * wasm back-ends for the runners' tests, written in WebAssembly text and compiled with wabt: `watModule` speaks the
 * ABI (a bump allocator, `{"result": <params>}` echoes) and dispatches on its method's first letter — `echo` (and
 * logs its name), `log` (100 lines, then echo), `oob` (a load out of bounds), `grow` (grows until refused, then
 * traps), `badlen` (an answer longer than its memory), `spin` (never returns); anything else echoes.
 */
import wabt from "wabt";

let wat: Awaited<ReturnType<typeof wabt>> | undefined;

/** Compiles WebAssembly text (with the threads feature, for a shared memory). */
export async function wasmFromText(text: string): Promise<Uint8Array> {
  wat ??= await wabt();
  const parsed = wat.parseWat("test.wat", text, { threads: true });
  try {
    return parsed.toBinary({}).buffer;
  } finally {
    parsed.destroy();
  }
}

const ECHO_BODY = `
  (global $top (mut i32) (i32.const 1024))
  (data (i32.const 16) "{\\"result\\":")
  (func $alloc (export "lineup_alloc") (param $n i32) (result i32)
    (local $p i32) (local $need i32)
    (local.set $p (global.get $top))
    (global.set $top (i32.and (i32.add (i32.add (global.get $top) (local.get $n)) (i32.const 7)) (i32.const -8)))
    (local.set $need (i32.sub (global.get $top) (i32.mul (memory.size) (i32.const 65536))))
    (if (i32.gt_s (local.get $need) (i32.const 0))
      (then (if (i32.lt_s (memory.grow (i32.add (i32.shr_u (local.get $need) (i32.const 16)) (i32.const 1))) (i32.const 0)) (then unreachable))))
    (local.get $p))
  (func $echo (param $pp i32) (param $pl i32) (result i32)
    (local $out i32)
    (local.set $out (call $alloc (i32.add (local.get $pl) (i32.const 15))))
    (i32.store (local.get $out) (i32.add (local.get $pl) (i32.const 11)))
    (memory.copy (i32.add (local.get $out) (i32.const 4)) (i32.const 16) (i32.const 10))
    (memory.copy (i32.add (local.get $out) (i32.const 14)) (local.get $pp) (local.get $pl))
    (i32.store8 (i32.add (local.get $out) (i32.add (local.get $pl) (i32.const 14))) (i32.const 125))
    (local.get $out))`;

const DISPATCH = `
  (func (export "lineup_call") (param $mp i32) (param $ml i32) (param $pp i32) (param $pl i32) (result i32)
    (local $m i32) (local $i i32)
    (local.set $m (i32.load8_u (local.get $mp)))
    (if (i32.eq (local.get $m) (i32.const 101)) (then (call $log (local.get $mp) (local.get $ml)) (return (call $echo (local.get $pp) (local.get $pl)))))
    (if (i32.eq (local.get $m) (i32.const 111)) (then (return (i32.load (i32.const -16)))))
    (if (i32.eq (local.get $m) (i32.const 103)) (then (loop $l (br_if $l (i32.ge_s (memory.grow (i32.const 1)) (i32.const 0)))) unreachable))
    (if (i32.eq (local.get $m) (i32.const 98)) (then (i32.store (i32.const 64) (i32.const 0x7fffffff)) (return (i32.const 64))))
    (if (i32.eq (local.get $m) (i32.const 108)) (then
      (loop $l (call $log (local.get $mp) (local.get $ml)) (local.set $i (i32.add (local.get $i) (i32.const 1))) (br_if $l (i32.lt_u (local.get $i) (i32.const 100))))
      (return (call $echo (local.get $pp) (local.get $pl)))))
    (if (i32.eq (local.get $m) (i32.const 115)) (then (loop $l (br $l))))
    (call $echo (local.get $pp) (local.get $pl)))`;

/** A module with `memory` as its memory import and `extra` fields (more imports, a start function). */
export const watModule = (memory = "(memory 1)", extra = "", call = DISPATCH): Promise<Uint8Array> =>
  wasmFromText(`(module (import "env" "memory" ${memory}) (import "lineup" "log" (func $log (param i32 i32))) ${extra} ${ECHO_BODY} ${call})`);

