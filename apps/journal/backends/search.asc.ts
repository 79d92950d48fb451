// The journal's full-text search, in AssemblyScript, compiled to the wasm back-end `backends/search.wasm`.
// The host's ABI (docs/manifest.md §8b): memory imported as `env.memory`; `lineup_alloc(len)` gives the host room
// for the method name and the params (UTF-8 JSON); `lineup_call(...)` answers a pointer to a u32 length and the
// UTF-8 JSON `{"result": …}` or `{"error": {"code", "message"}}`.
//
// `search` takes `{"query": string, "entries": [{"key": string, "text": string}]}` and answers
// `{"matches": [{"key", "score"}]}`: the entries in which every word of the query begins a word, most hits first.

export function lineup_alloc(len: i32): usize {
  return heap.alloc(<usize>len);
}

export function lineup_free(ptr: usize, _len: i32): void {
  heap.free(ptr);
}

class Reader {
  pos: i32 = 0;
  constructor(public text: string) {}
  ws(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c == 32 || c == 9 || c == 10 || c == 13) this.pos++;
      else break;
    }
  }
  peek(): i32 {
    this.ws();
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1;
  }
  expect(c: i32): void {
    if (this.peek() != c) throw new Error("malformed params");
    this.pos++;
  }
  str(): string {
    this.expect(34);
    let out = "";
    let start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c == 34) {
        out += this.text.substring(start, this.pos);
        this.pos++;
        return out;
      }
      if (c == 92) {
        out += this.text.substring(start, this.pos);
        const e = this.text.charCodeAt(this.pos + 1);
        if (e == 110) out += "\n";
        else if (e == 116) out += "\t";
        else if (e == 114) out += "\r";
        else if (e == 98 || e == 102) out += " ";
        else if (e == 117) {
          out += String.fromCharCode(<i32>parseInt(this.text.substring(this.pos + 2, this.pos + 6), 16));
          this.pos += 4;
        } else out += String.fromCharCode(e);
        this.pos += 2;
        start = this.pos;
        continue;
      }
      this.pos++;
    }
    throw new Error("unterminated string");
  }
  /** Skips any JSON value. */
  skip(): void {
    const c = this.peek();
    if (c == 34) {
      this.str();
      return;
    }
    if (c == 123 || c == 91) {
      const close = c == 123 ? 125 : 93;
      this.pos++;
      if (this.peek() == close) {
        this.pos++;
        return;
      }
      while (true) {
        if (c == 123) {
          this.str();
          this.expect(58);
        }
        this.skip();
        const n = this.peek();
        this.pos++;
        if (n == close) return;
        if (n != 44) throw new Error("malformed params");
      }
    }
    while (this.pos < this.text.length) {
      const d = this.text.charCodeAt(this.pos);
      if (d == 44 || d == 125 || d == 93 || d == 32 || d == 10 || d == 13 || d == 9) return;
      this.pos++;
    }
  }
}

class Entry {
  constructor(public key: string, public text: string) {}
}

function isWordChar(c: i32): bool {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 128;
}

function words(text: string): string[] {
  const out = new Array<string>();
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const inWord = i < lower.length && isWordChar(lower.charCodeAt(i));
    if (inWord && start < 0) start = i;
    if (!inWord && start >= 0) {
      out.push(lower.substring(start, i));
      start = -1;
    }
  }
  return out;
}

function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 34) out += '\\"';
    else if (c == 92) out += "\\\\";
    else if (c < 32) out += "\\u00" + (c < 16 ? "0" : "") + c.toString(16);
    else out += String.fromCharCode(c);
  }
  return out + '"';
}

function search(params: string): string {
  const r = new Reader(params);
  let query = "";
  const entries = new Array<Entry>();
  r.expect(123);
  if (r.peek() == 125) r.pos++;
  else
    while (true) {
      const name = r.str();
      r.expect(58);
      if (name == "query") query = r.str();
      else if (name == "entries") {
        r.expect(91);
        if (r.peek() == 93) r.pos++;
        else
          while (true) {
            let key = "";
            let text = "";
            r.expect(123);
            if (r.peek() == 125) r.pos++;
            else
              while (true) {
                const field = r.str();
                r.expect(58);
                if (field == "key") key = r.str();
                else if (field == "text") text = r.str();
                else r.skip();
                const n = r.peek();
                r.pos++;
                if (n == 125) break;
                if (n != 44) throw new Error("malformed params");
              }
            entries.push(new Entry(key, text));
            const n = r.peek();
            r.pos++;
            if (n == 93) break;
            if (n != 44) throw new Error("malformed params");
          }
      } else r.skip();
      const n = r.peek();
      r.pos++;
      if (n == 125) break;
      if (n != 44) throw new Error("malformed params");
    }
  const wanted = words(query);
  const keys = new Array<string>();
  const scores = new Array<i32>();
  for (let e = 0; e < entries.length; e++) {
    const have = words(entries[e].text);
    let score = 0;
    let all = wanted.length > 0;
    for (let w = 0; w < wanted.length; w++) {
      let hits = 0;
      for (let h = 0; h < have.length; h++) if (have[h].startsWith(wanted[w])) hits++;
      if (hits == 0) {
        all = false;
        break;
      }
      score += hits;
    }
    if (!all) continue;
    // Insert by score, highest first; equal scores keep the entries' order.
    keys.push(entries[e].key);
    scores.push(score);
    for (let at = keys.length - 1; at > 0 && scores[at - 1] < scores[at]; at--) {
      const k = keys[at];
      keys[at] = keys[at - 1];
      keys[at - 1] = k;
      const s = scores[at];
      scores[at] = scores[at - 1];
      scores[at - 1] = s;
    }
  }
  let out = '{"matches":[';
  for (let i = 0; i < keys.length; i++) out += (i > 0 ? "," : "") + '{"key":' + quote(keys[i]) + ',"score":' + scores[i].toString() + "}";
  return out + "]}";
}

function answer(json: string): usize {
  const bytes = String.UTF8.encode(json);
  const len = bytes.byteLength;
  const ptr = heap.alloc(<usize>(len + 4));
  store<u32>(ptr, <u32>len);
  memory.copy(ptr + 4, changetype<usize>(bytes), <usize>len);
  return ptr;
}

export function lineup_call(methodPtr: usize, methodLen: i32, paramsPtr: usize, paramsLen: i32): usize {
  const method = String.UTF8.decodeUnsafe(methodPtr, <usize>methodLen);
  const params = String.UTF8.decodeUnsafe(paramsPtr, <usize>paramsLen);
  if (method != "search") return answer('{"error":{"code":"method_not_found","message":"no method ' + method + '"}}');
  return answer('{"result":' + search(params) + "}");
}
