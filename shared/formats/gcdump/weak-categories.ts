/**
 * Which pseudo-node categories of a .gcdump hold weak GC handles, whose references keep nothing
 * alive (NODE_WEAK_EDGES), exactly as the nettrace and CF heap-log readers flag them.
 *
 * A .gcdump has no flag for this: the only mark is the category's name. Heapscope writes
 * "[weak Handles]" (`collect`, a trace read with weak roots kept) and "[weak GC handles]" (a CF
 * heap log); other producers spell handle kinds "[WeakShort Handles]", "[weak long handles]".
 * So a category is weak when its name is "[weak…handle(s)]" in letters and spaces only: a
 * static-variable holder ("[static var Foo.weakHandles]") or "[Dependent Handles]" never matches.
 * dotnet-gcdump and PerfView drop weak handles, so their files have no such category.
 */
const WEAK_CATEGORY = /^\[weak[a-z ]*handles?\]$/i;

export function isWeakCategoryName(name: string): boolean {
  return WEAK_CATEGORY.test(name);
}
