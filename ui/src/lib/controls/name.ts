/**
 * `name` cut after each run of separators (`_ : / . -`), so a narrow column
 * wraps `demo__get_issue` as `demo__` `get_` `issue` and not mid-word.
 */
export function nameParts(name: string): string[] {
  return name.match(/[^_:/.-]*[_:/.-]*/g)?.filter((part) => part !== '') ?? [name];
}
