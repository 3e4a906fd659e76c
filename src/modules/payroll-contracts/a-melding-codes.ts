/**
 * The allowed values of an employment contract's coded fields. Spec 002 "Employment contract" says
 * those of employment_type, employment_form, work_time_arrangement and remuneration_type are "not
 * shown"; these are the code lists of the a-melding, the monthly report by which a
 * Norwegian employer reports employments and pay to the authorities (Skatteetaten, "a-meldingen –
 * kodeliste": arbeidsforholdstype, ansettelsesform, arbeidstidsordning, avloenningstype,
 * sluttaarsak), with the codes as the a-melding spells them and their Norwegian labels.
 *
 * The codes are the wire values over REST and MCP, and the GraphQL enum values (every code is a legal
 * GraphQL name), so one spelling serves every entry point; `payrollCodeLists` answers the lists
 * with their labels. Only the values of those four lists are accepted (400 otherwise).
 *
 * end_date_reason is text of at most 50 characters in the spec, not a coded field: the a-melding's
 * sluttaarsak codes are listed too (`restricted: false`), as the values the employment-end report
 * means, but any text is taken and reported as it is.
 */
export interface CodeList<T extends string = string> {
  /** the a-melding's name of the list */
  name: string;
  /** the contract field it is the value list of (snake_case, as on the wire) */
  field: string;
  /** only these values are accepted (false: the values are suggestions, the field takes any text) */
  restricted: boolean;
  values: readonly { value: T; label: string }[];
}

const list = <const T extends string>(name: string, field: string, values: readonly { value: T; label: string }[], restricted = true): CodeList<T> => ({ name, field, restricted, values });

/** arbeidsforholdstype → employment_type */
export const EMPLOYMENT_TYPES = list('arbeidsforholdstype', 'employment_type', [
  { value: 'ordinaertArbeidsforhold', label: 'Ordinært arbeidsforhold' },
  { value: 'maritimtArbeidsforhold', label: 'Maritimt arbeidsforhold' },
  { value: 'frilanserOppdragstakerHonorarPersonerMm', label: 'Frilanser, oppdragstaker, honorar personer mm.' },
  { value: 'pensjonOgAndreTyperYtelserUtenAnsettelsesforhold', label: 'Pensjon og andre typer ytelser uten ansettelsesforhold' },
]);

/** ansettelsesform → employment_form */
export const EMPLOYMENT_FORMS = list('ansettelsesform', 'employment_form', [
  { value: 'fast', label: 'Fast ansettelse' },
  { value: 'midlertidig', label: 'Midlertidig ansettelse' },
]);

/** arbeidstidsordning → work_time_arrangement */
export const WORK_TIME_ARRANGEMENTS = list('arbeidstidsordning', 'work_time_arrangement', [
  { value: 'ikkeSkift', label: 'Ikke skift' },
  { value: 'skift365', label: 'Skiftarbeid 36,5 timer' },
  { value: 'doegnkontinuerligSkiftOgTurnus355', label: 'Døgnkontinuerlig skiftarbeid og tilsvarende turnusarbeid 35,5 timer' },
  { value: 'helkontinuerligSkiftOgAndreOrdninger336', label: 'Helkontinuerlig skiftarbeid og andre ordninger med 33,6 timer' },
  { value: 'offshore336', label: 'Arbeidstidsordning innretninger på kontinentalsokkelen 33,6 timer' },
]);

/** avloenningstype → remuneration_type */
export const REMUNERATION_TYPES = list('avloenningstype', 'remuneration_type', [
  { value: 'fast', label: 'Fastlønn' },
  { value: 'time', label: 'Timelønn' },
  { value: 'akkord', label: 'Akkord' },
  { value: 'provisjon', label: 'Provisjonslønn' },
  { value: 'honorar', label: 'Honorar' },
]);

/** sluttaarsak → end_date_reason (suggested: the field is free text, at most 50 characters) */
export const END_DATE_REASONS = list('sluttaarsak', 'end_date_reason', [
  { value: 'arbeidstakerHarSagtOppSelv', label: 'Arbeidstaker har sagt opp selv' },
  { value: 'arbeidsgiverHarSagtOppArbeidstaker', label: 'Arbeidsgiver har sagt opp arbeidstaker' },
  { value: 'kontraktEngasjementEllerVikariatErUtloept', label: 'Kontrakt, engasjement eller vikariat er utløpt' },
  { value: 'byttetLoenssystemEllerRegnskapsfoerer', label: 'Byttet lønnssystem eller regnskapsfører' },
  { value: 'endringIOrganisasjonsstrukturEllerByttetJobbInternt', label: 'Endring i organisasjonsstruktur eller byttet jobb internt' },
  { value: 'arbeidsforholdetSkulleAldriVaertRapportert', label: 'Arbeidsforholdet skulle aldri vært rapportert' },
], false);

/** Every list, in the order `payrollCodeLists` answers them. */
export const A_MELDING_CODE_LISTS: readonly CodeList[] = [EMPLOYMENT_TYPES, EMPLOYMENT_FORMS, WORK_TIME_ARRANGEMENTS, REMUNERATION_TYPES, END_DATE_REASONS];

/** The codes of a list, as a tuple zod's and Pothos' enums take. */
export const codesOf = <T extends string>(l: CodeList<T>): [T, ...T[]] => l.values.map((v) => v.value) as [T, ...T[]];

/** A GraphQL enum's values with each code's label as its description. */
export const enumValuesOf = <T extends string>(l: CodeList<T>): Record<T, { description: string }> =>
  Object.fromEntries(l.values.map((v) => [v.value, { description: v.label }])) as Record<T, { description: string }>;
