/**
 * The Runtime loads its app-schema engine (RE2, the JSON Schema interpreter, the meta-schema check) by `import()`
 * in `start()`. Importing the same code here lets the page fetch and compile that chunk beside the Runtime chunk,
 * from its first script on, rather than after it: the Runtime's own import then finds it in the page's module map.
 */
export { createToolSchemaValidator } from "@lineup/protocol";
