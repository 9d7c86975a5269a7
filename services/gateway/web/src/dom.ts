// Small DOM helpers: elements built from text (never from HTML strings, so nothing a
// player named or sent is parsed as markup).

export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

export function el(tag: string, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  element.append(...children);
  return element;
}

export function show(id: string, visible: boolean): void {
  $(id).hidden = !visible;
}
