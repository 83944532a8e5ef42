import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { Line, Nullable, RequiredFreeText, RequiredLine } from '@dfc/contracts';
import { ValidationError } from '@dfc/kit/errors';
import { bodyValidator, queryValidator } from '@dfc/kit/validation';

const Body = Type.Object({
  company_name: Type.String({ minLength: 1, maxLength: 5 }),
  email: Type.String({ format: 'email' }),
  nested: Type.Optional(Type.Object({ items: Type.Array(Type.Object({ size: Type.Integer({ minimum: 1 }) })) })),
});

function errorsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(ValidationError);
    return (error as ValidationError).errors;
  }
  throw new Error('expected a ValidationError');
}

describe('bodyValidator', () => {
  const validate = bodyValidator(Body);

  it('when the body is valid, then it returns it typed', () => {
    expect(validate({ company_name: 'Acme', email: 'a@b.co' }).company_name).to.equal('Acme');
  });

  it('when several fields fail, then every field is reported at once in Laravel words', () => {
    const errors = errorsOf(() => validate({ company_name: 'toolong', email: 'nope' }));
    expect(errors).to.deep.equal({
      company_name: ['The company name field must not be greater than 5 characters.'],
      email: ['The email field must be a valid email address.'],
    });
  });

  it('when a required field is missing or empty, then "is required" names it', () => {
    expect(errorsOf(() => validate({ company_name: '' }))).to.deep.equal({
      company_name: ['The company name field is required.'],
      email: ['The email field is required.'],
    });
  });

  it('when a nested field fails, then the error key is its dot path', () => {
    const errors = errorsOf(() => validate({ company_name: 'A', email: 'a@b.co', nested: { items: [{ size: 1 }, { size: 0 }] } }));
    expect(errors).to.deep.equal({ 'nested.items.1.size': ['The nested.items.1.size field must be at least 1.'] });
  });

  it('when the summary covers several errors, then the message counts the others', () => {
    try {
      validate({});
    } catch (error) {
      expect((error as ValidationError).message).to.equal('The company name field is required. (and 1 more error)');
      return;
    }
    expect.fail('no error');
  });
});

describe('queryValidator', () => {
  it('when numbers arrive as text, then they are coerced and defaults applied', () => {
    const validate = queryValidator(Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }), per_page: Type.Integer({ default: 15 }) }));
    expect(validate({ page: '3' })).to.deep.equal({ page: 3, per_page: 15 });
  });

  const List = Type.Object({ status: Type.Optional(Type.String()), page: Type.Integer({ minimum: 1, default: 1 }) });

  it('when a parameter comes in an unknown shape (status[], status[$ne]) or is unknown, then 422 names it', () => {
    const validate = queryValidator(List);
    expect(errorsOf(() => validate({ 'status[$ne]': 'Pending' }))).to.deep.equal({ 'status[$ne]': ['The status[$ne] field is prohibited.'] });
    expect(errorsOf(() => validate({ 'status[]': 'Pending', colour: 'red' }))).to.have.keys('status[]', 'colour');
    expect(errorsOf(() => validate({ status: ['Pending', 'Approved'] }))).to.deep.equal({ status: ['The status field must be a string.'] });
  });

  it('when an integer is not written as digits (1e3, 1.0, 0x10), then 422 like 1.5', () => {
    const validate = queryValidator(List);
    for (const page of ['1e3', '1.0', '0x10', '1.5', ' 2']) {
      expect(
        errorsOf(() => validate({ page })),
        page,
      ).to.deep.equal({ page: ['The page field must be an integer.'] });
    }
  });
});

describe('bodyValidator: null', () => {
  it('when a required field is null, then "is required" as Laravel says, not "must be a string"', () => {
    expect(errorsOf(() => bodyValidator(Body)({ company_name: null, email: 'a@b.example' }))).to.deep.equal({
      company_name: ['The company name field is required.'],
    });
  });
});

describe('queryValidator and NUL characters', () => {
  it('when a query value holds a NUL character, then 422 names that parameter', () => {
    const validate = queryValidator(Type.Object({ authority: Type.Optional(Type.String()) }));
    expect(errorsOf(() => validate({ authority: 'LV\u0000NL' }))).to.deep.equal({
      authority: ['The authority field must not contain NUL characters.'],
    });
    expect(validate({ authority: 'LVNL' })).to.deep.equal({ authority: 'LVNL' });
  });
});

describe('bodyValidator and the text rules of @dfc/contracts', () => {
  const Texts = Type.Object({
    name: RequiredLine({ maxLength: 20 }),
    note: Type.Optional(Nullable(Line({ maxLength: 20 }))),
    reason: Type.Optional(RequiredFreeText({ maxLength: 40 })),
  });
  const validate = bodyValidator(Texts);

  it('when required texts are blank (spaces, tabs, no-break spaces), then each is "required"', () => {
    for (const blank of ['   ', '\t', ' \u00a0 ']) {
      expect(
        errorsOf(() => validate({ name: blank, reason: blank })),
        JSON.stringify(blank),
      ).to.deep.equal({
        name: ['The name field is required.'],
        reason: ['The reason field is required.'],
      });
    }
  });

  it('when texts carry surrounding white space, then they are stored trimmed and inner spaces kept', () => {
    expect(validate({ name: '  Jane  Pilot ', note: ' n ', reason: '\n two\n lines \t' })).to.deep.equal({
      name: 'Jane  Pilot',
      note: 'n',
      reason: 'two\n lines',
    });
  });

  it('when a one-line text holds a line break or a tab, then 422 says one line; free text may hold them', () => {
    expect(errorsOf(() => validate({ name: 'Jane\nPilot', note: 'a\tb', reason: 'a\r\nb\tc' }))).to.deep.equal({
      name: ['The name field must be a single line without control characters.'],
      note: ['The note field must be a single line without control characters.'],
    });
  });

  it('when a text is too long, then the length message, not the pattern’s', () => {
    expect(errorsOf(() => validate({ name: 'x'.repeat(21) }))).to.deep.equal({ name: ['The name field must not be greater than 20 characters.'] });
  });

  it('when a long text has control characters late, then the patterns answer in linear time', () => {
    const started = Date.now();
    const long = `${' '.repeat(200_000)}a${' a'.repeat(200_000)}\u0001`;
    errorsOf(() => validate({ name: long, reason: long }));
    expect(Date.now() - started).to.be.below(1_000);
  });
});
