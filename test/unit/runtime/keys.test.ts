import { expect } from "chai";
import { keyOf, modifierBits, parseChord } from "../../../src/runtime/keys.js";

describe("keys and chords", () => {
  it("knows named keys, letters, digits and the shifted characters of a US keyboard", () => {
    expect(keyOf("Enter")).to.deep.equal({ key: "Enter", code: "Enter", keyCode: 13, text: "\r" });
    expect(keyOf("a")).to.include({ code: "KeyA", keyCode: 65, text: "a" });
    expect(keyOf("A")).to.include({ code: "KeyA", keyCode: 65, text: "A" });
    expect(keyOf("!")).to.include({ code: "Digit1", text: "!" });
    expect(keyOf("?")).to.include({ code: "Slash", keyCode: 191 });
    expect(keyOf("F5")).to.deep.equal({ key: "F5", code: "F5", keyCode: 116 });
    expect(keyOf("é")).to.equal(undefined);
  });

  it("reads chords with modifiers, the + key included, and says why a chord is not one", () => {
    const chord = parseChord("Control+Shift+ArrowLeft");
    expect(chord).to.deep.include({ modifiers: ["Control", "Shift"] });
    expect(typeof chord !== "string" && chord.key.key).to.equal("ArrowLeft");
    expect(typeof chord !== "string" && modifierBits(chord.modifiers)).to.equal(2 | 8);
    const plus = parseChord("Control++");
    expect(typeof plus !== "string" && [plus.modifiers, plus.key.key]).to.deep.equal([["Control"], "+"]);
    expect(parseChord("+")).to.deep.include({ modifiers: [] });
    expect(parseChord("Hyper+A")).to.equal('"Hyper" is not a modifier (Alt, Control, Meta, Shift)');
    expect(parseChord("Control+Nope")).to.match(/^"Nope" is not a key the hub knows/);
  });
});
