/**
 * The values suggested for an employment contract's coded fields. Spec 002 "Employment contract" gives
 * employment_type, employment_form, work_time_arrangement and remuneration_type as text of at most 50
 * characters whose allowed values are "not shown", and end_date_reason as text of at most 50; these
 * are the code lists of the a-melding, the monthly report by which a Norwegian employer reports
 * employments and pay to the authorities (Skatteetaten, "a-meldingen – kodeliste":
 * arbeidsforholdstype, ansettelsesform, arbeidstidsordning, avloenningstype, sluttaarsak), with the
 * codes as the a-melding spells them and their Norwegian labels.
 *
 * They are suggestions (`restricted: false`), not the only values taken: a client written from the
 * spec knows only "string, max 50", and a contract is stored with the text it sends (employment_type
 * is required, so refusing what is not a code would refuse every such client's contract).
 * `payrollCodeLists` answers the lists with their labels; the employment-end report sends
 * end_date_reason as it is stored.
 */
export interface CodeList<T extends string = string> {
  /** the a-melding's name of the list */
  name: string;
  /** the contract field it is the value list of (snake_case, as on the wire) */
  field: string;
  /** only these values are accepted (false: the values are suggestions, the field takes any text of at most 50 characters) */
  restricted: boolean;
  values: readonly { value: T; label: string }[];
}

const list = <const T extends string>(name: string, field: string, values: readonly { value: T; label: string }[], restricted = false): CodeList<T> => ({ name, field, restricted, values });

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

/** sluttaarsak → end_date_reason */
export const END_DATE_REASONS = list('sluttaarsak', 'end_date_reason', [
  { value: 'arbeidstakerHarSagtOppSelv', label: 'Arbeidstaker har sagt opp selv' },
  { value: 'arbeidsgiverHarSagtOppArbeidstaker', label: 'Arbeidsgiver har sagt opp arbeidstaker' },
  { value: 'kontraktEngasjementEllerVikariatErUtloept', label: 'Kontrakt, engasjement eller vikariat er utløpt' },
  { value: 'byttetLoenssystemEllerRegnskapsfoerer', label: 'Byttet lønnssystem eller regnskapsfører' },
  { value: 'endringIOrganisasjonsstrukturEllerByttetJobbInternt', label: 'Endring i organisasjonsstruktur eller byttet jobb internt' },
  { value: 'arbeidsforholdetSkulleAldriVaertRapportert', label: 'Arbeidsforholdet skulle aldri vært rapportert' },
]);

/** Every list, in the order `payrollCodeLists` answers them. */
export const A_MELDING_CODE_LISTS: readonly CodeList[] = [EMPLOYMENT_TYPES, EMPLOYMENT_FORMS, WORK_TIME_ARRANGEMENTS, REMUNERATION_TYPES, END_DATE_REASONS];
